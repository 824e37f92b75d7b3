// Every `--format` export on real runs against a real redis-server: the whole timeline as JSON,
// ndjson, Markdown tables, a Mermaid sequence diagram (parsed by Mermaid itself, under jsdom),
// and RESP (parsed back by redis-parser and compared with the captured arguments).
import { JSDOM } from 'jsdom';
import RedisParser from 'redis-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkExportTarget } from '../../src/cli/export-formats.ts';
import { renderJson } from '../../src/output/json.ts';
import { renderMarkdown } from '../../src/output/markdown.ts';
import { renderMermaid } from '../../src/output/mermaid.ts';
import { renderNdjson } from '../../src/output/ndjson.ts';
import { renderResp } from '../../src/output/resp.ts';
import { scenario } from '../../src/scenarios/builder.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import type { Timeline } from '../../src/scenarios/timeline.ts';
import { allCommands } from '../../src/scenarios/timeline.ts';
import { assertTrace } from '../../src/testing/assert-trace.ts';
import { anyPayload, payload, scoreAt, script } from '../../src/testing/patterns.ts';
import { runShipped, useRedis } from '../helpers/run.ts';

const redis = useRedis();

// Metacharacters of every format and terminal control bytes, where a scenario can put them: a
// queue name (it reaches the keys of every command), the title and a note.
const NASTY_QUEUE = 'q|<b>#;%&`*_[x]é';
const NASTY_NOTE = 'note | <script>alert(1)</script> #59; ;\x1b[2J\u202e end `tick` *bold*';

let shipped: Timeline;
let nasty: Timeline;

beforeAll(async () => {
  shipped = await runShipped('failure-release', redis());
  nasty = await runScenario(
    scenario('nasty', 'title with | < > # ; and \x1b]0;pwned\x07')
      .connection('redis', { queue: NASTY_QUEUE })
      .worker('worker-1', { tries: 1 })
      .job('Ping', { class: 'App\\Jobs\\Ping', properties: { text: 'é 漢字 \u202e | <b>' } })
      .dispatch('Ping', { at: 0, note: NASTY_NOTE })
      .build(),
    { redis: redis() },
  );
  expect(shipped.error).toBeUndefined();
  expect(nasty.error).toBeUndefined();
});

const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

describe('--format json', () => {
  it('is the whole timeline: JSON.parse gives it back, and it can be asserted later', () => {
    for (const t of [shipped, nasty]) {
      const text = renderJson(t);
      expect(text).not.toMatch(UNSAFE);
      expect(JSON.parse(text)).toEqual(t);
    }
    // failure-release (5.7): dispatch is SELECT 0 + RPUSH of the attempts-0 payload.
    const saved = JSON.parse(renderJson(shipped)) as Timeline;
    assertTrace(saved, ['SELECT 0', ['RPUSH', 'queues:default', payload({ attempts: 0 })]], { actor: 'dispatcher' });
  });
});

describe('--format ndjson', () => {
  it('is one JSON object per captured command, in order', () => {
    const lines = renderNdjson(shipped).trimEnd().split('\n');
    const commands = allCommands(shipped);
    expect(lines).toHaveLength(commands.length);
    lines.forEach((line, i) => {
      const o = JSON.parse(line) as { step: number; actor: string; source: string; args: string[] };
      expect(o).toMatchObject({
        step: commands[i]!.step,
        actor: commands[i]!.actor,
        source: commands[i]!.source,
        args: commands[i]!.args,
      });
    });
    expect(renderNdjson(nasty)).not.toMatch(UNSAFE);
  });
});

describe('--format markdown', () => {
  /** Cells of a table row, split on `|` that is not escaped. */
  const cells = (row: string) =>
    row
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim());

  it('has a heading and a table per step with one row per command', () => {
    const md = renderMarkdown(shipped);
    const sections = md.split('\n### ').slice(1);
    expect(sections).toHaveLength(shipped.steps.length);
    sections.forEach((section, i) => {
      const step = shipped.steps[i]!;
      expect(section.startsWith(`#${i} `)).toBe(true);
      const rows = section.split('\n').filter((l) => /^\| \d+ \|/.test(l));
      expect(rows).toHaveLength(step.commands.length);
      rows.forEach((row, j) =>
        expect(cells(row)).toEqual([
          String(j + 1),
          step.commands[j]!.source === 'lua' ? 'Lua script' : step.actor,
          expect.any(String),
        ]),
      );
    });
    // The release of the failed first attempt (5.7 release script, due after --delay).
    expect(md).toMatch(
      /\| `EVAL ‹release› 2 queues:default:delayed queues:default:reserved ‹ChargeCard#1 attempts:1› \d+` \|/,
    );
  });

  it('keeps every cell a cell and no tag or control byte through', () => {
    const md = renderMarkdown(nasty);
    expect(md).not.toMatch(UNSAFE);
    // Outside code spans (where `<b>` is literal text) no `<` opens a tag.
    expect(md.replace(/(`+).*?\1/g, '')).not.toContain('<');
    for (const row of md.split('\n').filter((l) => /^\| \d+ \|/.test(l))) expect(cells(row)).toHaveLength(3);
    expect(md).toContain('``RPUSH queues:q\\|<b>#;%&`*_[x]é ‹Ping#1 attempts:0›``');
    // Rendered, this reads: note | <script>alert(1)</script> #59; ;\x1b[2J\u202e end `tick` *bold*
    expect(md).toContain(
      String.raw`> note \| &lt;script\>alert(1)&lt;/script\> \#59; ;\\x1b\[2J\\u202e end \`tick\` \*bold\*`,
    );
  });
});

describe('--format mermaid', () => {
  let mermaid: typeof import('mermaid').default;
  beforeAll(async () => {
    // Mermaid sanitises labels with DOMPurify, which needs a DOM.
    const dom = new JSDOM('<!doctype html><html><body></body></html>');
    Object.assign(globalThis, { window: dom.window, document: dom.window.document });
    mermaid = (await import('mermaid')).default;
  });

  /** The messages Mermaid's own parser found, its entity placeholders decoded. */
  async function messages(text: string): Promise<{ from: string; to: string; message: string }[]> {
    expect(await mermaid.parse(text)).toMatchObject({ diagramType: 'sequence' });
    const diagram = await mermaid.mermaidAPI.getDiagramFromText(text);
    const db = diagram.db as unknown as { getMessages(): { from?: string; to?: string; message: string }[] };
    return db
      .getMessages()
      .filter((m) => m.from !== undefined)
      .map((m) => ({
        from: m.from!,
        to: m.to!,
        message: m.message.replace(/ﬂ°°(\d+)¶ß/g, (_, n: string) => String.fromCharCode(Number(n))),
      }));
  }

  it('parses as a sequence diagram: a note per step, a message per command', async () => {
    const got = await messages(renderMermaid(shipped));
    const commands = allCommands(shipped);
    // Mermaid lists notes among the messages (from = to = the noted actor's id); one per step.
    const arrows = got.filter((m) => !m.message.startsWith('#'));
    expect(got.length - arrows.length).toBe(shipped.steps.length);
    expect(arrows).toHaveLength(commands.length);
    arrows.forEach((m, i) => {
      const c = commands[i]!;
      if (c.source === 'lua') expect(m).toMatchObject({ from: 'redis', to: 'redis' });
      else expect(m.to).toBe('redis');
      expect(
        m.message.startsWith(`${c.source === 'lua' ? '[lua] ' : ''}${c.args[0]} `) || m.message === c.args[0],
      ).toBe(true);
    });
    expect(arrows[0]!.message).toBe('SELECT 0');
  });

  it('cannot be broken or extended by a payload, key or note', async () => {
    const text = renderMermaid(nasty);
    expect(text).not.toMatch(UNSAFE);
    const got = await messages(text);
    const arrows = got.filter((m) => !m.message.startsWith('#'));
    expect(arrows).toHaveLength(allCommands(nasty).length);
    expect(arrows[1]!.message).toBe(`RPUSH queues:${NASTY_QUEUE} ‹Ping#1 attempts:0›`);
    expect(got.find((m) => m.message.startsWith('#0 '))!.message).toBe(
      `#0 t+0s dispatch Ping#1 onto queues:${NASTY_QUEUE}`,
    );
  });
});

describe('--format resp', () => {
  function parse(bytes: Buffer): Buffer[][] {
    const replies: Buffer[][] = [];
    const parser = new RedisParser({
      returnBuffers: true,
      returnReply: (r: Buffer[]) => replies.push(r),
      returnError: (e) => {
        throw e;
      },
    });
    parser.execute(bytes);
    return replies;
  }

  it('parses back into exactly the client commands, byte for byte', () => {
    for (const t of [shipped, nasty]) {
      const client = allCommands(t).filter((c) => c.source === 'client');
      const replies = parse(renderResp(t));
      expect(replies).toHaveLength(client.length);
      replies.forEach((reply, i) => {
        const binary = new Set(client[i]!.binaryArgs ?? []);
        expect(reply).toEqual(client[i]!.args.map((a, j) => Buffer.from(a, binary.has(j) ? 'latin1' : 'utf8')));
      });
    }
  });

  it('counts bytes, not characters, in the bulk lengths', () => {
    const push = allCommands(nasty).find((c) => c.args[0] === 'RPUSH')!;
    const bytes = renderResp({ steps: [{ ...nasty.steps[0]!, commands: [push] }] }).toString('utf8');
    const len = Buffer.byteLength(push.args[1]!, 'utf8');
    expect(len).toBe(push.args[1]!.length + 1); // é is two bytes in UTF-8
    expect(bytes).toContain(`\r\n$${len}\r\n`);
  });

  it('the stream is what the hand-derived dispatch sends: *2 SELECT 0, then *3 RPUSH', () => {
    const first = parse(renderResp(shipped))
      .slice(0, 2)
      .map((r) => r.map((b) => b.toString('utf8')));
    expect(first[0]).toEqual(['SELECT', '0']);
    expect(first[1]!.slice(0, 2)).toEqual(['RPUSH', 'queues:default']);
    assertTrace(shipped, ['SELECT 0', ['RPUSH', 'queues:default', anyPayload()]], { actor: 'dispatcher', lua: false });
  });

  it('is not written to a terminal', () => {
    expect(() => checkExportTarget('resp', { isTTY: true })).toThrow(/redirect it to a file or a pipe/);
    expect(() => checkExportTarget('resp', { isTTY: false })).not.toThrow();
    expect(() => checkExportTarget('markdown', { isTTY: true })).not.toThrow();
  });
});

it('script() and scoreAt() patterns hold on a real 5.7 run (pop reserves until now + 90)', () => {
  const pop = allCommands(shipped).find((c) => c.script === 'pop')!;
  assertTrace({ ...shipped, steps: [{ ...shipped.steps[pop.step]!, commands: [pop] }] }, [
    ['EVAL', script('pop'), 2, 'queues:default', 'queues:default:reserved', scoreAt(pop.t - shipped.start + 90)],
  ]);
});
