// loadScenario(name): a shipped scenario by the name `lqsim list` shows, from the package's own
// scenarios/ folder whatever the working directory, and a clear error for anything else.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listScenarios, loadScenario, SCENARIOS_DIR } from '../../src/index.ts';

describe('loadScenario', () => {
  it('loads every shipped scenario by its name, validated, with its file', async () => {
    const listed = await listScenarios();
    expect(listed.length).toBeGreaterThan(5);
    for (const entry of listed) {
      const loaded = await loadScenario(entry.name);
      expect(loaded.spec.name).toBe(entry.name);
      expect(loaded.spec.title).toBe(entry.title);
      expect(loaded.file).toBe(join(SCENARIOS_DIR, `${entry.name}.yaml`));
    }
  });

  it('reads the catalog only: a file of the same name in the working directory is not taken', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lqsim-load-'));
    const cwd = process.cwd();
    try {
      writeFileSync(join(dir, 'dispatch'), 'not: a scenario\n');
      process.chdir(dir);
      expect((await loadScenario('dispatch')).spec.name).toBe('dispatch');
    } finally {
      process.chdir(cwd);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an unknown name suggests the closest; a path is sent to loadScenarioFile', async () => {
    await expect(loadScenario('timeout-max-attempt')).rejects.toThrow(
      /no such scenario; run lqsim list to see them \(did you mean "timeout-max-attempts"/,
    );
    await expect(loadScenario('flows/x.yaml')).rejects.toThrow(
      "loadScenario takes a shipped scenario's name (lqsim list); load a file with loadScenarioFile(path)",
    );
  });
});
