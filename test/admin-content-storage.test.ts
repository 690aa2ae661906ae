import { expect } from 'chai';
import { readUploadContent, MAX_UPLOAD_BYTES } from '../src/storage/uploads.js';
import { issueToken, type Schemas } from './support/admin.js';
import { useAdminApi } from './support/admin-fixture.js';
import { describeEachDatabase } from './support/databases.js';
import { CONTENT_SCOPES, ids, walkList } from './admin-content-fixtures.js';

type StorageUpload = Schemas['StorageUpload'];
type StorageUploadList = Schemas['StorageUploadList'];

describeEachDatabase('admin API: storage uploads', (scratch) => {
  const admin = useAdminApi(scratch, { scopes: CONTENT_SCOPES });

  async function createSlot(body: Record<string, unknown>, client = admin.api): Promise<StorageUpload> {
    const answer = await client.call<StorageUpload>('createStorageUpload', { body });
    expect(answer.status, answer.text).to.equal(201);
    return answer.body;
  }

  function put(upload: StorageUpload, content: string, contentType: string = upload.contentType, client = admin.api) {
    return client.call<StorageUpload>('uploadStorageContent', { path: { uploadId: String(upload.id) }, rawBody: content, contentType });
  }

  it('creates a pending slot with a random site-scoped key, the upload URL and a 15-minute expiry', async () => {
    const before = Date.now();
    const answer = await admin.api.call<StorageUpload>('createStorageUpload', { body: { filename: 'Team Photo.JPEG', contentType: 'image/jpeg', sizeBytes: 1234 } });
    expect(answer.status).to.equal(201);
    const upload = answer.body;
    expect(upload).to.include({ filename: 'Team Photo.JPEG', contentType: 'image/jpeg', sizeBytes: 1234, state: 'pending', uploadMethod: 'PUT', uploadedAt: null });
    expect(upload.objectKey).to.match(new RegExp(`^sites/${admin.server.siteA.id}/uploads/[0-9a-f]{32}\\.jpeg$`));
    expect(upload.uploadUrl).to.equal(`${admin.server.siteA.origin}/api/admin/v1/storage/uploads/${upload.id}/content`);
    expect(answer.headers.get('location')).to.equal(`${admin.server.siteA.origin}/api/admin/v1/storage/uploads/${upload.id}`);
    expect(answer.headers.get('etag')).to.equal('"v1"');
    const ttl = Date.parse(upload.expiresAt) - before;
    expect(ttl).to.be.within(15 * 60_000 - 5_000, 15 * 60_000 + 5_000);
    const read = await admin.api.call<StorageUpload>('getStorageUpload', { path: { uploadId: String(upload.id) } });
    expect(read.body).to.deep.equal(upload);
    // Keys are random: the same file twice gets two keys.
    const again = await createSlot({ filename: 'Team Photo.JPEG', contentType: 'image/jpeg', sizeBytes: 1234 });
    expect(again.objectKey).to.not.equal(upload.objectKey);
  });

  it('takes nothing from the file name but an extension that fits the media type', async () => {
    const traversal = await createSlot({ filename: '../../etc/passwd.png', contentType: 'image/png', sizeBytes: 10 });
    expect(traversal.objectKey).to.match(new RegExp(`^sites/${admin.server.siteA.id}/uploads/[0-9a-f]{32}\\.png$`));
    expect(traversal.filename).to.equal('passwd.png');
    const disguised = await createSlot({ filename: 'invoice.pdf.exe', contentType: 'application/pdf', sizeBytes: 10 });
    expect(disguised.objectKey).to.match(/\/[0-9a-f]{32}\.pdf$/);
    const none = await createSlot({ filename: 'README', contentType: 'text/markdown', sizeBytes: 10 });
    expect(none.objectKey).to.match(/\/[0-9a-f]{32}\.md$/);
  });

  it('refuses media types outside the allowlist, sizes out of range and unknown members, with pointers', async () => {
    const bad = await admin.api.call('createStorageUpload', { body: { filename: '', contentType: 'image/svg+xml', sizeBytes: MAX_UPLOAD_BYTES + 1, path: '/tmp/x' } });
    expect(bad.status).to.equal(400);
    expect((bad.problem.errors ?? []).map((error) => error.pointer)).to.include.members(['/filename', '/contentType', '/sizeBytes', '/path']);
    const empty = await admin.api.call('createStorageUpload', { body: { filename: 'a.txt', contentType: 'text/plain', sizeBytes: 0 } });
    expect(empty.status).to.equal(400);
    expect(empty.problem.errors).to.deep.include({ pointer: '/sizeBytes', message: 'must be >= 1' });
    expect((await createSlot({ filename: 'big.zip', contentType: 'application/zip', sizeBytes: MAX_UPLOAD_BYTES })).sizeBytes).to.equal(MAX_UPLOAD_BYTES);
  });

  it('stores the bytes in the database, once: the slot becomes uploaded, a second upload is 409', async () => {
    const content = 'Grüße aus der Schule — ✓\n'.repeat(3);
    const size = Buffer.byteLength(content);
    expect(size).to.not.equal(content.length);
    const upload = await createSlot({ filename: 'notes.txt', contentType: 'text/plain', sizeBytes: size });
    const answer = await put(upload, content);
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.body).to.include({ id: upload.id, state: 'uploaded', objectKey: upload.objectKey });
    expect(answer.body.uploadedAt).to.be.a('string');
    expect(answer.headers.get('etag')).to.equal('"v2"');
    const stored = await readUploadContent(scratch().db, admin.server.siteA.id, upload.id);
    expect(stored?.toString('utf8')).to.equal(content);
    const twice = await put(upload, content);
    expect(twice.status).to.equal(409);
    expect(twice.problem.code).to.equal('upload_already_completed');
    expect((await admin.api.call<StorageUpload>('getStorageUpload', { path: { uploadId: String(upload.id) } })).body.state).to.equal('uploaded');
  });

  it('stores a file of the largest size in chunks and reads back the same bytes', async function () {
    this.timeout(120000);
    // Every byte value that survives as one UTF-8 byte, repeated to 8 MiB.
    const pattern = Array.from({ length: 128 }, (_, index) => String.fromCharCode(index)).join('');
    const content = pattern.repeat(MAX_UPLOAD_BYTES / pattern.length);
    expect(content.length).to.equal(MAX_UPLOAD_BYTES);
    const upload = await createSlot({ filename: 'big.txt', contentType: 'text/plain', sizeBytes: MAX_UPLOAD_BYTES });
    const answer = await put(upload, content);
    expect(answer.status, answer.text.slice(0, 300)).to.equal(200);
    const chunks = (await scratch().db('storage_upload_chunks').where({ upload_id: upload.id }).count({ n: '*' }).first()) as { n: number | string };
    expect(Number(chunks.n)).to.equal(Math.ceil(MAX_UPLOAD_BYTES / (48 * 1024)));
    const stored = await readUploadContent(scratch().db, admin.server.siteA.id, upload.id);
    expect(stored?.length).to.equal(MAX_UPLOAD_BYTES);
    expect(stored?.equals(Buffer.from(content, 'latin1'))).to.equal(true);
  });

  it('lets exactly one of two concurrent uploads to one slot win', async () => {
    const upload = await createSlot({ filename: 'race.csv', contentType: 'text/csv', sizeBytes: 6 });
    const answers = await Promise.all([put(upload, 'a,b\n1\n'), put(upload, 'x,y\n2\n')]);
    expect(answers.map((answer) => answer.status).sort()).to.deep.equal([200, 409]);
    const loser = answers.find((answer) => answer.status === 409);
    expect(loser?.problem.code).to.equal('upload_already_completed');
    const stored = (await readUploadContent(scratch().db, admin.server.siteA.id, upload.id))?.toString('utf8');
    expect(['a,b\n1\n', 'x,y\n2\n']).to.include(stored);
  });

  it('refuses another media type (415), a wrong length (400) and keeps the slot pending', async () => {
    const upload = await createSlot({ filename: 'logo.png', contentType: 'image/png', sizeBytes: 8 });
    const otherAllowed = await put(upload, '12345678', 'image/jpeg');
    expect(otherAllowed.status).to.equal(415);
    expect(otherAllowed.problem.code).to.equal('unsupported_media_type');
    expect(otherAllowed.problem.detail).to.contain('image/png');
    const json = await admin.api.call('uploadStorageContent', { path: { uploadId: String(upload.id) }, body: { bytes: 'x' } });
    expect(json.status).to.equal(415);
    const short = await put(upload, '1234567');
    expect(short.status).to.equal(400);
    expect(short.problem.errors).to.deep.equal([{ pointer: '', message: 'must be exactly 8 bytes' }]);
    const long = await put(upload, '123456789');
    expect(long.status).to.equal(400);
    const empty = await admin.api.call('uploadStorageContent', { path: { uploadId: String(upload.id) }, headers: { 'content-type': 'image/png' } });
    expect(empty.status).to.equal(400);
    const read = await admin.api.call<StorageUpload>('getStorageUpload', { path: { uploadId: String(upload.id) } });
    expect(read.body.state).to.equal('pending');
    expect(await scratch().db('storage_upload_chunks').where({ upload_id: upload.id }).first()).to.equal(undefined);
    expect((await put(upload, 'PNG\r\n\x1a\n\x00')).status).to.equal(200);
    // The JSON operations still refuse other media types.
    expect((await admin.api.call('createStorageUpload', { rawBody: 'x', contentType: 'image/png' })).status).to.equal(415);
    // An operation without a body still refuses one, whatever its media type.
    const withBody = await admin.api.call('deleteStorageUpload', { path: { uploadId: String(upload.id) }, rawBody: 'x', contentType: 'image/png' });
    expect(withBody.status).to.equal(400);
    expect(withBody.problem.errors).to.deep.equal([{ pointer: '', message: 'must be empty' }]);
    expect((await admin.api.call('getStorageUpload', { path: { uploadId: String(upload.id) } })).status).to.equal(200);
  });

  it('expires a slot nobody uploaded to in time (409 upload_expired), and lists by state', async () => {
    const db = scratch().db;
    const late = await createSlot({ filename: 'late.pdf', contentType: 'application/pdf', sizeBytes: 4 });
    await db('storage_uploads').where({ id: late.id }).update({ expires_at: new Date(Date.now() - 1000) });
    const read = await admin.api.call<StorageUpload>('getStorageUpload', { path: { uploadId: String(late.id) } });
    expect(read.body.state).to.equal('expired');
    const refused = await put(late, '%PDF', 'application/pdf');
    expect(refused.status).to.equal(409);
    expect(refused.problem.code).to.equal('upload_expired');

    const all = await walkList<StorageUpload>(admin.api, 'listStorageUploads', { limit: 3 });
    const expected = (await db('storage_uploads').where({ site_id: admin.server.siteA.id }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).select('id')) as Array<{ id: number }>;
    expect(ids(all.rows)).to.deep.equal(expected.map((row) => Number(row.id)));
    const byState = async (state: string): Promise<StorageUpload[]> => (await walkList<StorageUpload>(admin.api, 'listStorageUploads', { limit: 2, query: { state } })).rows;
    const expired = await byState('expired');
    expect(ids(expired)).to.deep.equal([late.id]);
    const pending = await byState('pending');
    const uploaded = await byState('uploaded');
    expect(pending.every((upload) => upload.state === 'pending')).to.equal(true);
    expect(uploaded.every((upload) => upload.state === 'uploaded')).to.equal(true);
    expect(pending.length + uploaded.length + expired.length).to.equal(all.rows.length);
    const oldestFirst = await walkList<StorageUpload>(admin.api, 'listStorageUploads', { limit: 4, query: { sort: 'createdAt' } });
    expect(ids(oldestFirst.rows)).to.deep.equal(ids(all.rows).reverse());
    expect((await admin.api.call('listStorageUploads', { query: { state: 'deleted' } })).status).to.equal(400);
    expect((await admin.api.call('listStorageUploads', { query: { cursor: 'e30' } })).problem.code).to.equal('invalid_cursor');
  });

  it('deletes a slot with its bytes, in any state', async () => {
    const db = scratch().db;
    const upload = await createSlot({ filename: 'gone.txt', contentType: 'text/plain', sizeBytes: 3 });
    expect((await put(upload, 'bye')).status).to.equal(200);
    expect(await db('storage_upload_chunks').where({ upload_id: upload.id }).first()).to.not.equal(undefined);
    expect((await admin.api.call('deleteStorageUpload', { path: { uploadId: String(upload.id) } })).status).to.equal(204);
    expect(await db('storage_upload_chunks').where({ upload_id: upload.id }).first()).to.equal(undefined);
    expect((await admin.api.call('getStorageUpload', { path: { uploadId: String(upload.id) } })).status).to.equal(404);
    expect((await put(upload, 'bye')).status).to.equal(404);
    const pending = await createSlot({ filename: 'never.txt', contentType: 'text/plain', sizeBytes: 3 });
    expect((await admin.api.call('deleteStorageUpload', { path: { uploadId: String(pending.id) } })).status).to.equal(204);
    expect((await admin.api.call('deleteStorageUpload', { path: { uploadId: String(pending.id) } })).status).to.equal(404);
  });

  it('keeps each site\'s slots to itself (404) and needs storage:write', async () => {
    const upload = await createSlot({ filename: 'a.txt', contentType: 'text/plain', sizeBytes: 1 });
    const path = { uploadId: String(upload.id) };
    expect((await admin.apiB.call('getStorageUpload', { path })).status).to.equal(404);
    expect((await put(upload, 'b', 'text/plain', admin.apiB)).status).to.equal(404);
    expect((await admin.apiB.call('deleteStorageUpload', { path })).status).to.equal(404);
    expect(ids((await admin.apiB.call<StorageUploadList>('listStorageUploads')).body.data)).to.not.include(upload.id);
    const keyB = (await createSlot({ filename: 'b.txt', contentType: 'text/plain', sizeBytes: 1 }, admin.apiB)).objectKey;
    expect(keyB.startsWith(`sites/${admin.server.siteB.id}/uploads/`)).to.equal(true);
    expect((await put(upload, 'a')).status).to.equal(200);
    const reader = admin.api.withToken((await issueToken(scratch().db, admin.server.siteA, { scopes: ['posts:read', 'pages:write'] })).token);
    for (const answer of [
      await reader.call('createStorageUpload', { body: { filename: 'x.txt', contentType: 'text/plain', sizeBytes: 1 } }),
      await reader.call('getStorageUpload', { path }),
      await reader.call('listStorageUploads'),
      await reader.call('deleteStorageUpload', { path }),
      await put(upload, 'a', 'text/plain', reader),
    ]) {
      expect(answer.status).to.equal(403);
      expect(answer.problem.code).to.equal('insufficient_scope');
    }
    // Without any token, the bytes are not even looked at.
    expect((await put(upload, 'a', 'text/plain', admin.api.withToken(null))).status).to.equal(401);
  });
});
