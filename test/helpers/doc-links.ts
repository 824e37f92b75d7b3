// Relative links in this repository's markdown (README.md, docs/*.md): where they point, and
// whether that resolves as GitHub renders it (headings' anchors slugged as GitHub slugs them).
// Links inside code (fenced blocks, `inline`) are text, not links; web addresses are not followed.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The pages a reader follows from the README. */
export const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The lines outside fenced code blocks (a fence's own lines included as blank). */
export function prose(markdown: string): string[] {
  let fence: string | null = null;
  return markdown.split('\n').map((line) => {
    const open = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && open !== undefined) {
      fence = open;
      return '';
    }
    if (fence !== null) {
      if (line.trim().startsWith(fence)) fence = null;
      return '';
    }
    return line;
  });
}

/** A heading's anchor as GitHub makes it: the text lowercased, punctuation dropped, spaces to `-`. */
export function githubSlug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link's text only
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor of a page's headings, repeated ones numbered as GitHub numbers them (`x`, `x-1`). */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(markdown)) {
    const text = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
    if (text === undefined) continue;
    const slug = githubSlug(text);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

/** The relative link targets of a page, with their line numbers. */
export function links(markdown: string): Array<{ line: number; target: string }> {
  const out: Array<{ line: number; target: string }> = [];
  prose(markdown).forEach((text, i) => {
    const code = text.replace(/(`+)[\s\S]*?\1/g, (m) => ' '.repeat(m.length)); // inline code is not a link
    for (const m of code.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = m[1]!;
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) out.push({ line: i + 1, target });
    }
  });
  return out;
}

/** Why a link from `page` does not resolve, or null. */
export function broken(page: string, target: string): string | null {
  const [path, anchor] = target.split('#', 2) as [string, string | undefined];
  const file = path === '' ? join(ROOT, page) : join(ROOT, dirname(page), decodeURI(path));
  if (!existsSync(file)) return `${relative(ROOT, file)} does not exist`;
  if (anchor === undefined || anchor === '') return null;
  if (!file.endsWith('.md')) return `an anchor into ${relative(ROOT, file)}, which is not markdown`;
  return anchors(readFileSync(file, 'utf8')).has(decodeURIComponent(anchor))
    ? null
    : `${relative(ROOT, file)} has no heading whose anchor is #${anchor}`;
}
