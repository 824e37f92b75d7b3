// Who else is in a db, from CLIENT LIST text as Redis 7 prints it (one client per line,
// `key=value` fields; `db=` the selected db, flags b blocked, O monitor).
import { describe, expect, it } from 'vitest';
import { clientsAt, describeClient, othersInDb } from '../../src/redis/claim-clients.ts';

const entry = (id: number, addr: string, db: number, flags: string, cmd: string, name = '') =>
  `id=${id} addr=${addr} laddr=127.0.0.1:6379 fd=8 name=${name} age=1 idle=0 flags=${flags} db=${db} sub=0 psub=0 ssub=0 multi=-1 qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=1024 rbp=0 obl=0 oll=0 omem=0 tot-mem=1 events=r cmd=${cmd} user=default redir=-1 resp=2`;
const LIST = [
  entry(3, '127.0.0.1:1001', 0, 'O', 'monitor'), // someone's MONITOR, in db 0 where it connected
  entry(4, '127.0.0.1:1002', 0, 'N', 'client|list'), // the run's own observer
  entry(5, '127.0.0.1:1003', 1, 'b', 'blpop', 'app-worker'), // queue:work blocked on an empty db
  entry(6, '127.0.0.1:1004', 2, 'N', 'get'),
].join('\n');

describe('othersInDb', () => {
  it('counts a blocked client in its db, and an idle one', () => {
    expect(othersInDb(LIST, 1, new Set())).toEqual([{ addr: '127.0.0.1:1003', name: 'app-worker', cmd: 'blpop' }]);
    expect(othersInDb(LIST, 2, new Set())).toEqual([{ addr: '127.0.0.1:1004', name: '', cmd: 'get' }]);
    expect(othersInDb(LIST, 3, new Set())).toEqual([]);
  });

  it("does not count monitors (they run nothing in a db) nor the run's own connections", () => {
    expect(othersInDb(LIST, 0, new Set(['4']))).toEqual([]); // by CLIENT ID
    expect(othersInDb(LIST, 0, new Set())).toEqual([{ addr: '127.0.0.1:1002', name: '', cmd: 'client|list' }]);
  });

  it('finds clients by address and describes them', () => {
    expect(clientsAt(LIST, ['127.0.0.1:1003', '127.0.0.1:9999']).map(describeClient)).toEqual([
      '127.0.0.1:1003 "app-worker", last command blpop',
    ]);
  });
});
