import { expect } from 'chai';
import { decodeNodeId, encodeNodeId, NODE_TYPES } from '../src/member/ids.js';

describe('member API ids', () => {
  it('are the base64url of `<Type>:<id>` without padding, for every type and every length of id', () => {
    const ids = [0, 1, 9, 10, 99, 100, 999, 1000, 12345, 123456, 1234567, 2 ** 31, 2 ** 32 + 7, Number.MAX_SAFE_INTEGER];
    for (const type of NODE_TYPES) {
      for (const id of ids) {
        const encoded = encodeNodeId(type, id);
        expect(encoded, `${type} ${id}`).to.equal(Buffer.from(`${type}:${id}`, 'utf8').toString('base64url'));
        if (id > 0) expect(decodeNodeId(type, encoded)).to.equal(id);
      }
    }
    for (let id = 1; id <= 5000; id++) expect(encodeNodeId('Lecture', id)).to.equal(Buffer.from(`Lecture:${id}`, 'utf8').toString('base64url'));
  });
});
