// An export format rendered from the whole timeline (`lqsim run --format`, the lab's `export`).
import type { Timeline } from '../scenarios/timeline.ts';
import type { ExportFormat } from './formats.ts';
import { renderJson } from './json.ts';
import { renderMarkdown } from './markdown.ts';
import { renderMermaid } from './mermaid.ts';
import { renderResp } from './resp.ts';

export function renderExport(format: ExportFormat, timeline: Timeline): string | Buffer {
  switch (format) {
    case 'json':
      return renderJson(timeline);
    case 'markdown':
      return renderMarkdown(timeline);
    case 'mermaid':
      return renderMermaid(timeline);
    case 'resp':
      return renderResp(timeline);
  }
}
