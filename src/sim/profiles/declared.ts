// The order a job class declares its own properties in. serialize() (and SerializesModels'
// __serialize/__sleep, which walk ReflectionClass::getProperties()) writes a class's own
// properties in declaration order, before its traits' (Dispatchable, InteractsWithQueue,
// Queueable...). A class may declare its own `public $invoiceId;` before `public $tries = 3;`.
import type { PhpObject } from '../php.ts';

type Own = PhpObject['properties'];

/**
 * `own` (options first, then the scenario's properties: what a class declared in that order
 * serializes) reordered as `declared` lists them (PHP names). Names `declared` does not list keep
 * their place after the listed ones; the loader makes a scenario list every one.
 */
export function inDeclaredOrder(own: Own, declared: readonly string[] | null | undefined): Own {
  if (!declared) return own;
  const rank = (name: string) => {
    const i = declared.indexOf(name);
    return i === -1 ? declared.length : i;
  };
  // Array.prototype.sort is stable: unlisted names keep their relative order.
  return [...own].sort((a, b) => rank(a.name) - rank(b.name));
}
