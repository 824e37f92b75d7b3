// Standard output for a long stream written in many small parts (`lqsim explain`'s steps, ~90,000
// of them for a 200 MB capture): each part encoded at once into a 64 KB buffer, and the buffer
// handed to the stream when full. A write to the stream per part cost a stream's bookkeeping and a
// system call each (~1.5 µs: 0.14 s of those 90,000 to a file). The text is copied into the buffer
// as it comes, so no string outlives its part: holding the parts' strings to join them later kept
// them past the young generation's scavenges, and made the run slower than writing each one.
import { safeJson } from '../output/json.ts';

const SIZE = 1 << 16;
/** The most bytes a UTF-16 code unit takes in UTF-8. */
const MAX_BYTES_PER_UNIT = 3;
const DEL = 0x7f;

export class ByteOut {
  private buf: Buffer;
  private used = 0;

  /**
   * @param size the buffer's size; 0 writes each part through at once (an interactive terminal).
   * @param o.toDescriptor the stream writes to a file descriptor (process.stdout: a file, a pipe, a
   * terminal): a write it is done with (nothing left pending) has been copied to the kernel, so
   * the buffer can be filled again. Another stream may keep what it was handed (a PassThrough
   * hands it on as it is): a new buffer after each write.
   */
  constructor(
    private readonly stream: NodeJS.WritableStream = process.stdout,
    private readonly size = SIZE,
    private readonly o: { toDescriptor?: boolean } = { toDescriptor: stream === process.stdout },
  ) {
    this.buf = Buffer.allocUnsafe(size);
  }

  /** `text` as it is. */
  write(text: string): void {
    if (!this.room(text)) {
      if (text.length > 0) this.stream.write(text);
      return;
    }
    this.used += this.buf.write(text, this.used, 'utf8');
  }

  /**
   * JSON.stringify's text, made terminal-safe as safeJson does; tested on the bytes it was just
   * encoded to (ASCII: as many bytes as chars; no DEL), not by a scan of its own before.
   */
  writeJson(raw: string): void {
    if (!this.room(raw)) {
      const bytes = Buffer.from(raw, 'utf8');
      if (bytes.length === raw.length && bytes.indexOf(DEL) === -1) this.stream.write(bytes);
      else this.stream.write(safeJson(raw));
      return;
    }
    const at = this.used;
    const n = this.buf.write(raw, at, 'utf8');
    if (n === raw.length && this.buf.subarray(at, at + n).indexOf(DEL) === -1) this.used += n;
    else this.write(safeJson(raw)); // over what was just encoded
  }

  /** What is buffered, out to the stream (before anything else writes to the terminal, and at the end). */
  flush(): void {
    if (this.used === 0) return;
    const stream = this.stream as NodeJS.WritableStream & { writableLength?: number };
    stream.write(this.buf.subarray(0, this.used));
    this.used = 0;
    // Written through to a descriptor (a file's writes are synchronous; a pipe's, while its reader
    // keeps up): the buffer is free again. Else the stream holds on to it until it is written: a
    // new one from here. (A new one each time left the old ones, outside V8's heap, to a
    // collection that comes late: 15 MB more at the peak of a json run.)
    if (this.o.toDescriptor !== true || stream.writableLength !== 0) this.buf = Buffer.allocUnsafe(this.size);
  }

  /** Whether `text` fits in the buffer (flushed first if need be); false: it goes through on its own. */
  private room(text: string): boolean {
    const most = text.length * MAX_BYTES_PER_UNIT;
    if (most <= this.size - this.used) return true;
    this.flush();
    return most <= this.size;
  }
}
