// The export formats: the views rendered from a whole timeline once its run has ended (`lqsim run
// --format`, the lab's `export`). Imports nothing, so the CLI's first module can list them.

/** The `lqsim run --format` choices rendered from the whole timeline once the run has ended. */
export const EXPORT_FORMATS = ['json', 'markdown', 'mermaid', 'resp'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export function isExportFormat(format: string): format is ExportFormat {
  return (EXPORT_FORMATS as readonly string[]).includes(format);
}
