// Esc then a key, in one read: Ink reports Alt+key; the App must see Esc, then the key (issue 12, bug 8).
import type { Key } from 'ink';
import { describe, expect, it } from 'vitest';
import { keyPresses } from '../../src/tui/input-keys.ts';

const key = (k: Partial<Key> = {}): Key =>
  ({
    upArrow: false,
    downArrow: false,
    leftArrow: false,
    rightArrow: false,
    pageDown: false,
    pageUp: false,
    home: false,
    end: false,
    return: false,
    escape: false,
    ctrl: false,
    shift: false,
    tab: false,
    backspace: false,
    delete: false,
    meta: false,
    ...k,
  }) as Key;

describe('keyPresses', () => {
  it('splits what Ink reads as Alt+q into Esc, then q', () => {
    const presses = keyPresses('q', key({ meta: true }));
    expect(presses.map(([i, k]) => [i, k.escape, k.meta])).toEqual([
      ['', true, false],
      ['q', false, false],
    ]);
  });

  it('leaves plain keys, arrows (whose escape sequences also set meta in some terminals) and Ctrl keys alone', () => {
    expect(keyPresses('q', key())).toEqual([['q', key()]]);
    expect(keyPresses('', key({ meta: true, upArrow: true }))).toHaveLength(1);
    expect(keyPresses('c', key({ ctrl: true }))).toHaveLength(1);
    expect(keyPresses('', key({ escape: true }))).toHaveLength(1);
  });
});
