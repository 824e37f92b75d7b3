// ModelCheck.stringsAt: what the model holds of the cache store's keys at an instant, as one
// string. A kept step whose queue keys' version and this string are those of the last step read
// shows that read's state again (step-collector.ts' sameAsLastRead), so the string must move with
// every change a read would see: a value, a hash's field, an expiry, a key that expired.
import { describe, expect, it } from 'vitest';
import { ModelCheck } from '../../src/sim/model/check.ts';
import { StringKeys } from '../../src/sim/model/strings.ts';

const T = 1700000000;
function model() {
  const check = new ModelCheck({
    now: () => T,
    labelOf: () => ({ job: null, attempts: null }),
    when: (t) => `t+${t - T}s`,
  });
  return { check, db0: new StringKeys(check.strings, 0), db1: new StringKeys(check.strings, 1) };
}
const by = (at: number) => ({ actor: 'worker-1', at, how: 'set' });

describe('ModelCheck.stringsAt', () => {
  it('is the same string while nothing changes, and says whether a key expires', () => {
    const { check, db0 } = model();
    expect(check.stringsAt(T)).toEqual({ print: '', ttl: false });
    db0.set('restart', '1700000000', {}, by(T));
    const a = check.stringsAt(T + 1);
    expect(a.ttl).toBe(false);
    expect(check.stringsAt(T + 50)).toEqual(a);
    db0.set('lock', 'owner-1', { ex: 10, nx: true }, by(T + 1));
    expect(check.stringsAt(T + 2).ttl).toBe(true);
    expect(check.stringsAt(T + 2).print).not.toBe(a.print);
  });

  it('moves with a value, a hash field, an expiry set, the db a key is in, and a key that has expired', () => {
    const { check, db0, db1 } = model();
    db0.set('counter', '1', {}, by(T));
    const prints = [check.stringsAt(T).print];
    db0.incrby('counter', 1, by(T));
    prints.push(check.stringsAt(T).print);
    db0.hmset('window', [['count', '1']], by(T));
    prints.push(check.stringsAt(T).print);
    db0.hincrby('window', 'count', 1, by(T));
    prints.push(check.stringsAt(T).print);
    db0.expire('window', 5, T);
    prints.push(check.stringsAt(T).print);
    db1.set('counter', '2', {}, by(T));
    prints.push(check.stringsAt(T).print);
    // `window` expires once now is past T + 5 (Redis' rule: now > its expiry).
    expect(check.stringsAt(T + 5).print).toBe(prints.at(-1));
    prints.push(check.stringsAt(T + 5.001).print);
    db0.del('counter', T + 6);
    prints.push(check.stringsAt(T + 6).print);
    expect(new Set(prints).size).toBe(prints.length);
  });
});
