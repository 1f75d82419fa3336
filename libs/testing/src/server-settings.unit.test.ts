import { describe, expect, it } from 'vitest';
import {
  AGENTWIRE_PODMAN_SOCKET,
  InvalidServerModeError,
  readServerSettings,
} from './server-settings.ts';

const none = () => false;
const only = (path: string) => (p: string) => p === path;

describe('readServerSettings', () => {
  it('defaults to auto, the official images and the local URLs', () => {
    const s = readServerSettings({}, none);
    expect(s).toMatchObject({
      mode: 'auto',
      dockerHost: undefined,
      dockerHostSource: 'none',
      pgImage: 'postgres:15',
      natsImage: 'nats:2.10',
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/postgres',
      natsUrl: 'nats://127.0.0.1:4222',
    });
  });

  it('prefers DOCKER_HOST, then docker.sock, then the agentwire Podman socket', () => {
    const all = () => true;
    expect(readServerSettings({ DOCKER_HOST: 'tcp://h:2375' }, all).dockerHostSource).toBe(
      'DOCKER_HOST',
    );
    expect(readServerSettings({}, all).dockerHost).toBe('unix:///var/run/docker.sock');
    const podman = readServerSettings({}, only(AGENTWIRE_PODMAN_SOCKET));
    expect(podman.dockerHost).toBe(`unix://${AGENTWIRE_PODMAN_SOCKET}`);
  });

  it('on the agentwire Podman socket uses the local images and disables Ryuk', () => {
    const s = readServerSettings({}, only(AGENTWIRE_PODMAN_SOCKET));
    expect(s.pgImage).toBe('localhost/agentwire-postgres:15');
    expect(s.natsImage).toBe('localhost/agentwire-nats:2.9');
    expect(s.containerEnv).toEqual({
      DOCKER_HOST: `unix://${AGENTWIRE_PODMAN_SOCKET}`,
      TESTCONTAINERS_RYUK_DISABLED: 'true',
      TESTCONTAINERS_HOST_OVERRIDE: '127.0.0.1',
    });
  });

  it('takes images, URLs and the mode from the environment', () => {
    const s = readServerSettings(
      {
        AGENTWIRE_TEST_SERVERS: 'local',
        AGENTWIRE_TEST_PG_IMAGE: 'pg:x',
        AGENTWIRE_TEST_NATS_IMAGE: 'nats:y',
        DATABASE_URL: 'postgres://u@db:1/d',
        NATS_URL: 'nats://n:2',
      },
      only(AGENTWIRE_PODMAN_SOCKET),
    );
    expect(s).toMatchObject({
      mode: 'local',
      pgImage: 'pg:x',
      natsImage: 'nats:y',
      databaseUrl: 'postgres://u@db:1/d',
      natsUrl: 'nats://n:2',
    });
  });

  it('rejects an unknown mode', () => {
    expect(() => readServerSettings({ AGENTWIRE_TEST_SERVERS: 'docker' }, none)).toThrow(
      InvalidServerModeError,
    );
  });
});
