import fs from 'node:fs';
import { isStreamedSection, type DocumentPart, type ImportSource, type StreamedSection } from './document-parts.js';

/** A file that is not one JSON object, with the byte where reading stopped. */
export class DocumentSyntaxError extends Error {}

const enum Mode {
  BeforeRoot,
  KeyOrEnd,
  Key,
  Colon,
  ValueStart,
  Value,
  AfterValue,
  ItemOrEnd,
  Item,
  AfterItem,
  Done,
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/**
 * Splits an import document into parts as its bytes arrive: each top-level member, and each element of a streamed list
 * (document-parts.ts), is cut out by tracking only strings and bracket depth, then handed to JSON.parse, which checks
 * it fully. So memory holds one record (or one small section) at a time, not the document. Structural characters are
 * ASCII, and UTF-8 never uses ASCII bytes inside a multi-byte character, so scanning bytes is safe.
 * (A general streaming JSON parser tokenises every value in JavaScript: about 10 MB/s, against some 100 MB/s here.)
 */
class DocumentScanner {
  private mode = Mode.BeforeRoot;
  private offset = 0;
  private key = '';
  private index = 0;
  /** Bytes of the key or value being read, when it is kept. */
  private pieces: Buffer[] = [];
  private keep = false;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private scalar = false;
  /** A member name must follow: JSON allows no "," before "}". */
  private afterComma = false;
  private readonly ready: DocumentPart[] = [];

  constructor(private readonly only: StreamedSection | undefined) {}

  private fail(message: string): never {
    throw new DocumentSyntaxError(`${message} at byte ${this.offset}`);
  }

  /** The parts completed so far, in order. */
  take(): DocumentPart[] {
    return this.ready.splice(0, this.ready.length);
  }

  end(): void {
    if (this.mode !== Mode.Done) this.fail('the document ends before its top-level object does');
  }

  write(chunk: Buffer): void {
    let start = 0; // where the kept piece begins in this chunk
    for (let i = 0; i < chunk.length; i += 1, this.offset += 1) {
      const byte = chunk[i] as number;
      switch (this.mode) {
        case Mode.BeforeRoot:
          if (this.offset === 0 && byte === 0xef) {
            // a UTF-8 byte order mark (EF BB BF) before the document
            i += 2;
            this.offset += 2;
          } else if (byte === 0x7b) this.mode = Mode.KeyOrEnd;
          else if (!isSpace(byte)) this.fail('the document is not a JSON object');
          break;
        case Mode.KeyOrEnd:
          if (byte === QUOTE) {
            this.mode = Mode.Key;
            this.pieces = [];
            this.escaped = false;
            start = i + 1;
          } else if (byte === 0x7d && !this.afterComma) this.mode = Mode.Done;
          else if (!isSpace(byte)) this.fail('expected a member name');
          break;
        case Mode.Key:
          if (this.escaped) this.escaped = false;
          else if (byte === BACKSLASH) this.escaped = true;
          else if (byte === QUOTE) {
            this.pieces.push(chunk.subarray(start, i));
            this.key = JSON.parse(`"${Buffer.concat(this.pieces).toString('utf8')}"`) as string;
            this.pieces = [];
            this.mode = Mode.Colon;
          }
          break;
        case Mode.Colon:
          this.afterComma = false;
          if (byte === 0x3a) this.mode = Mode.ValueStart;
          else if (!isSpace(byte)) this.fail('expected ":"');
          break;
        case Mode.ValueStart:
        case Mode.ItemOrEnd:
          if (isSpace(byte)) break;
          if (this.mode === Mode.ValueStart && byte === 0x5b && isStreamedSection(this.key)) {
            this.mode = Mode.ItemOrEnd;
            this.index = 0;
            break;
          }
          if (this.mode === Mode.ItemOrEnd && byte === 0x5d) {
            if (this.index > 0) this.fail('expected a value after ","');
            this.endList();
            break;
          }
          this.mode = this.mode === Mode.ValueStart ? Mode.Value : Mode.Item;
          this.keep = this.mode === Mode.Value ? this.only === undefined : this.only === undefined || this.only === this.key;
          this.pieces = [];
          start = i;
          this.depth = 0;
          this.inString = false;
          this.escaped = false;
          this.scalar = byte !== 0x7b && byte !== 0x5b && byte !== QUOTE;
          i -= 1; // read this byte again as the value's first
          this.offset -= 1;
          break;
        case Mode.Value:
        case Mode.Item: {
          let ended = false;
          let next = i + 1;
          if (this.inString) {
            if (this.escaped) this.escaped = false;
            else if (byte === BACKSLASH) this.escaped = true;
            else if (byte === QUOTE) {
              this.inString = false;
              ended = this.depth === 0;
            }
          } else if (this.scalar) {
            if (byte === 0x2c || byte === 0x7d || byte === 0x5d || isSpace(byte)) {
              ended = true;
              next = i; // the delimiter is not part of the value
            }
          } else if (byte === QUOTE) this.inString = true;
          else if (byte === 0x7b || byte === 0x5b) this.depth += 1;
          else if (byte === 0x7d || byte === 0x5d) {
            this.depth -= 1;
            ended = this.depth === 0;
          }
          if (!ended) break;
          if (this.keep) this.pieces.push(chunk.subarray(start, next));
          this.finishValue();
          if (next === i) {
            i -= 1;
            this.offset -= 1;
          }
          break;
        }
        case Mode.AfterValue:
          if (byte === 0x2c) {
            this.mode = Mode.KeyOrEnd;
            this.afterComma = true;
          } else if (byte === 0x7d) this.mode = Mode.Done;
          else if (!isSpace(byte)) this.fail('expected "," or "}"');
          break;
        case Mode.AfterItem:
          if (byte === 0x2c) this.mode = Mode.ItemOrEnd;
          else if (byte === 0x5d) this.endList();
          else if (!isSpace(byte)) this.fail('expected "," or "]"');
          break;
        case Mode.Done:
          if (!isSpace(byte)) this.fail('unexpected text after the document');
          break;
      }
    }
    if ((this.mode === Mode.Key || ((this.mode === Mode.Value || this.mode === Mode.Item) && this.keep)) && start < chunk.length) this.pieces.push(chunk.subarray(start));
  }

  private finishValue(): void {
    const text = this.keep ? Buffer.concat(this.pieces).toString('utf8') : '';
    this.pieces = [];
    let value: unknown;
    if (this.keep) {
      try {
        value = JSON.parse(text);
      } catch (error) {
        this.fail(`${this.mode === Mode.Item ? `${this.key}[${this.index}]` : this.key}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (this.mode === Mode.Item) {
      if (this.keep && isStreamedSection(this.key)) this.ready.push({ kind: 'record', section: this.key, index: this.index, value });
      this.index += 1;
      this.mode = Mode.AfterItem;
    } else {
      if (this.keep) this.ready.push({ kind: 'member', name: this.key, value });
      this.mode = Mode.AfterValue;
    }
  }

  private endList(): void {
    if (this.only === undefined) this.ready.push({ kind: 'member', name: this.key, value: [] });
    this.mode = Mode.AfterValue;
  }
}

/** The parts of an import document file, read in chunks (64 KB); each pass reads the file again. */
async function* fileParts(file: string, only?: StreamedSection): AsyncGenerator<DocumentPart> {
  const scanner = new DocumentScanner(only);
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 64 * 1024 })) {
    scanner.write(chunk as Buffer);
    yield* scanner.take();
  }
  scanner.end();
  yield* scanner.take();
}

export function fileSource(file: string): ImportSource {
  return { parts: (only) => fileParts(file, only) };
}
