// CLIENT LIST and CLIENT INFO replies, read: the claim's view of a server's clients, a
// connection's address and id, whether one is blocked.

/** Parses CLIENT LIST output into name → {id, addr, flags, cmd}. */
export function parseClientList(text: string): Array<Record<string, string>> {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((line) =>
      Object.fromEntries(
        line
          .trim()
          .split(' ')
          .map((kv) => {
            const i = kv.indexOf('=');
            return [kv.slice(0, i), kv.slice(i + 1)];
          }),
      ),
    );
}
