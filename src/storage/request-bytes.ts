import type { Readable } from 'node:stream';

/**
 * Reads a request body of raw bytes, at most `limit` of them. Answers null as soon as the body is longer (the rest is
 * left for Node to discard, never buffered). The admin API leaves non-JSON bodies unread for the operation that
 * declares their media type (src/admin/api/body.ts), so this is their only reader.
 */
export function readRequestBytes(stream: Readable, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const cleanup = (): void => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
    };
    const onData = (chunk: Buffer | string): void => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      length += bytes.length;
      if (length > limit) {
        cleanup();
        stream.resume();
        resolve(null);
        return;
      }
      chunks.push(bytes);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(Buffer.concat(chunks, length));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
  });
}
