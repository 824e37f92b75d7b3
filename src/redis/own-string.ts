// A string cut out of a capture line is, in V8, a slice that keeps the whole read chunk it came
// from alive (64 KB a chunk). A capture with a connection per request or per `--once` worker
// would keep every chunk of the file through the few short strings kept beyond their line (an
// address, a queue's name, a key): ownCopy makes those copies of their own.
//
// Why this idiom: `' ' + s` is a cons string, and slice() must flatten it into a fresh string
// first, so the result refers to that copy, not the chunk. It is the cheapest of the idioms that
// do copy (Buffer.from(s).toString() and a JSON round trip do too, 4 times slower); bench/ and
// test/unit/explain-memory.test.ts measure that the chunks are freed.

/** `s`, as a string that refers to no other string's memory. */
export function ownCopy(s: string): string {
  return (' ' + s).slice(1);
}
