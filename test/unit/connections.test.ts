import { describe, expect, it } from 'vitest';
import type { Client } from '../../src/redis/connections.ts';
import { actorConnectionName, clientAddress, isOwnSetname } from '../../src/redis/connections.ts';

describe('connection names', () => {
  it('names an actor connection lqsim:<run>:<actor>:<n>, and knows its own SETNAME by the run', () => {
    const name = actorConnectionName('ab12cd34', 'worker-1', 3);
    expect(name).toBe('lqsim:ab12cd34:worker-1:3');
    expect(isOwnSetname(['CLIENT', 'SETNAME', name], 'ab12cd34')).toBe(true);
    expect(isOwnSetname(['client', 'setname', name], 'ab12cd34')).toBe(true);
    expect(isOwnSetname(['CLIENT', 'SETNAME', name], 'ffffffff')).toBe(false);
    expect(isOwnSetname(['CLIENT', 'SETNAME', 'lqsim:ab12cd3'], 'ab12cd34')).toBe(false);
    expect(isOwnSetname(['CLIENT', 'SETNAME', name, 'x'], 'ab12cd34')).toBe(false);
  });
});

describe('clientAddress', () => {
  const replying = (reply: string) => ({ sendCommand: async () => reply }) as unknown as Client;

  it('reads addr=, not laddr= (Redis 6.2+ lists the server side too)', async () => {
    const info = 'id=7 addr=127.0.0.1:54716 laddr=127.0.0.1:6379 fd=8 name= age=0 idle=0 flags=N db=0\n';
    expect(await clientAddress(replying(info))).toBe('127.0.0.1:54716');
    expect(await clientAddress(replying('laddr=127.0.0.1:6379 addr=[::1]:4000 fd=8'))).toBe('[::1]:4000');
  });

  it('fails loudly when the reply names no address', async () => {
    await expect(clientAddress(replying('id=7 laddr=127.0.0.1:6379'))).rejects.toThrow(/CLIENT INFO named no address/);
  });
});
