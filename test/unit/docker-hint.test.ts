// Whether to probe Docker at all: only where an engine is configured, as testcontainers looks.
import { describe, expect, it } from 'vitest';
import { dockerEngineConfigured } from '../../src/redis/docker-hint.ts';

const none = { exists: () => false, home: '/home/u', uid: 1000, platform: 'linux' as const };

describe('dockerEngineConfigured', () => {
  it('is false with no DOCKER_HOST, no properties file and no socket', () => {
    expect(dockerEngineConfigured({}, none)).toBe(false);
  });
  it('is true with DOCKER_HOST or a testcontainers override', () => {
    expect(dockerEngineConfigured({ DOCKER_HOST: 'tcp://d:2375' }, none)).toBe(true);
    expect(dockerEngineConfigured({ TESTCONTAINERS_HOST_OVERRIDE: 'd' }, none)).toBe(true);
  });
  it.each([
    '/var/run/docker.sock',
    '/run/user/1000/docker.sock',
    '/home/u/.docker/run/docker.sock',
    '/home/u/.colima/default/docker.sock',
    '/home/u/.testcontainers.properties',
  ])('is true when %s exists', (path) => {
    expect(dockerEngineConfigured({}, { ...none, exists: (p) => p === path })).toBe(true);
  });
  it('looks in XDG_RUNTIME_DIR (rootless Docker), and always probes on Windows (a named pipe)', () => {
    expect(dockerEngineConfigured({ XDG_RUNTIME_DIR: '/x' }, { ...none, exists: (p) => p === '/x/docker.sock' })).toBe(
      true,
    );
    expect(dockerEngineConfigured({}, { ...none, platform: 'win32' })).toBe(true);
  });
});
