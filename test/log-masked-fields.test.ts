import { Writable } from 'node:stream';
import { expect } from 'chai';
import { createLogger, maskedFields, REDACTED } from '../src/shared/logger.js';

/** The lines a logger writes, as text, at the most verbose level. */
function capture(): { write: (fields: Record<string, string | number | undefined>, premasked: boolean) => string } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      callback();
    },
  });
  const logger = createLogger('trace', destination);
  return {
    write(fields, premasked) {
      logger.info(premasked ? maskedFields({ ...fields }) : { ...fields }, 'request');
      // The line is written synchronously to a Writable; the time differs between two lines, nothing else may.
      return (lines.at(-1) ?? '').replace(/"time":"[^"]+"/, '"time":""');
    },
  };
}

describe('log lines masked where they are built (maskedFields)', () => {
  it('are written as the formatter would have masked them: credentials in text and under a credential name', () => {
    const log = capture();
    const fields = {
      requestId: 'b3c1d8a2-1111-2222-3333-444455556666',
      path: '/api/oauth/userinfo;access_token=sga_path_SECRET_1',
      origin: 'http://school.example',
      userAgent: 'probe Bearer sga_agent_SECRET_2',
      clientId: 'client?code=code_SECRET_3',
      token: 'sga_named_SECRET_4',
      code: 'code_SECRET_5',
      status: 200,
      errorCode: undefined,
    };
    const premasked = log.write(fields, true);
    expect(premasked).to.equal(log.write(fields, false));
    expect(premasked).not.to.match(/SECRET/);
    const line = JSON.parse(premasked) as Record<string, unknown>;
    expect(line).to.include({ token: REDACTED, code: REDACTED, status: 200, origin: 'http://school.example', path: `/api/oauth/userinfo;access_token=${REDACTED}` });
    expect(line).not.to.have.property('errorCode');
  });

  it('leave other log objects to the formatter, which still walks nested objects', () => {
    const lines: string[] = [];
    const logger = createLogger('trace', new Writable({ write: (chunk: Buffer, _encoding, callback) => (lines.push(String(chunk)), callback()) }));
    logger.info({ request: { headers: { authorization: 'Bearer sga_nested_SECRET_6' } } }, 'nested');
    expect(lines.join('')).not.to.match(/SECRET/);
    expect(lines.join('')).to.include(REDACTED);
  });
});
