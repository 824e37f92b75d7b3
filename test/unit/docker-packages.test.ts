// Docker support is an optional peer dependency: where testcontainers is not installed, the Docker
// path fails with one line saying what to install (server.ts logs it and goes on to the local
// binary), whatever form Node's "not found" takes; any other failure keeps its own words. The whole
// path, from an installed package, is in test/integration/package.test.ts.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DOCKER_PACKAGES_INSTALL, loadDockerPackages } from '../../src/redis/docker-hint.ts';

const empty = mkdtempSync(join(tmpdir(), 'lqsim-no-docker-'));
afterAll(() => rmSync(empty, { recursive: true, force: true }));

/** The error Node itself raises for a package that is not installed, imported (ESM) or required (CommonJS). */
function nodeNotFound(name: string, how: 'import' | 'require'): Error {
  const script =
    how === 'import'
      ? `try { await import('${name}') } catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })) }`
      : `try { require('${name}') } catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })) }`;
  const out = execFileSync(process.execPath, ['--input-type', how === 'import' ? 'module' : 'commonjs', '-e', script], {
    cwd: empty,
    encoding: 'utf8',
  });
  const { code, message } = JSON.parse(out) as { code: string; message: string };
  return Object.assign(new Error(message), { code });
}

const hint = `testcontainers is not installed; to use Docker: ${DOCKER_PACKAGES_INSTALL}`;

describe('loadDockerPackages', () => {
  it.each([
    ['testcontainers', 'import'],
    ['@testcontainers/redis', 'import'],
    ['testcontainers', 'require'],
  ] as const)('says how to install them when %s is not installed (%s)', async (name, how) => {
    const missing = nodeNotFound(name, how);
    await expect(loadDockerPackages(() => Promise.reject(missing))).rejects.toThrow(hint);
    expect(hint).not.toContain('\n');
  });

  it('passes any other failure on in its own words, a missing package inside testcontainers included', async () => {
    const inside = nodeNotFound('ssh2', 'import');
    await expect(loadDockerPackages(() => Promise.reject(inside))).rejects.toBe(inside);
    const other = new Error('EACCES: permission denied');
    await expect(loadDockerPackages(() => Promise.reject(other))).rejects.toBe(other);
  });

  it('hands back what was loaded', async () => {
    await expect(loadDockerPackages(() => Promise.resolve(42))).resolves.toBe(42);
  });

  it('names the versions this package is tested with (its devDependencies) inside its peer range', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      devDependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
      dependencies: Record<string, string>;
    };
    for (const name of ['testcontainers', '@testcontainers/redis']) {
      const [major, minor] = pkg.devDependencies[name]!.split('.');
      expect(DOCKER_PACKAGES_INSTALL).toContain(` ${name}@${major}.${minor}`);
      expect(pkg.peerDependencies[name]).toBe(`^${major}.${minor}.0`);
      expect(pkg.peerDependenciesMeta[name]).toEqual({ optional: true });
      expect(pkg.dependencies[name]).toBeUndefined();
    }
  });
});
