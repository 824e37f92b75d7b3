// Every relative link in README.md and docs/*.md resolves: the file or folder exists, and a
// `#anchor` names a heading of the target as GitHub slugs it (test/helpers/doc-links.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchors, broken, links, PAGES, ROOT } from '../helpers/doc-links.ts';

describe('relative links in the README and docs/', () => {
  it.each(PAGES)('%s: every link resolves, anchors included', (page) => {
    const problems = links(readFileSync(join(ROOT, page), 'utf8')).flatMap(({ line, target }) => {
      const why = broken(page, target);
      return why === null ? [] : [`${page}:${line}: (${target}): ${why}`];
    });
    expect(problems).toEqual([]);
  });

  it('checks what it says: links found outside code only, GitHub anchors, a missing file or heading caught', () => {
    const page = [
      '# Comparing traces: `lqsim diff` and golden files',
      '## 5.7 → 8',
      '## Notes',
      '## Notes',
      'See [a](#comparing-traces-lqsim-diff-and-golden-files), [b](#57--8), [c](#notes-1) and [web](https://x.test/#y).',
      '`[not a link](nowhere.md)`',
      '```md',
      '[not a link either](nowhere.md)',
      '```',
    ].join('\n');
    expect([...anchors(page)]).toEqual(['comparing-traces-lqsim-diff-and-golden-files', '57--8', 'notes', 'notes-1']);
    expect(links(page).map((l) => l.target)).toEqual([
      '#comparing-traces-lqsim-diff-and-golden-files',
      '#57--8',
      '#notes-1',
    ]);
    expect(broken('README.md', 'docs/nowhere.md')).toBe('docs/nowhere.md does not exist');
    expect(broken('README.md', 'docs/cli.md#no-such-heading')).toBe(
      'docs/cli.md has no heading whose anchor is #no-such-heading',
    );
    expect(broken('docs/cli.md', 'library.md#use-it-as-a-library')).toBeNull();
    expect(broken('docs/cli.md', '../README.md#quick-start')).toBeNull();
  });
});
