/** The README's example, kept here so that `tsc` checks it (never run). */
import { startTitleSidecar, TitleSidecarConfig } from './index.ts';
import { connectTitleClient } from './testing/index.ts';

/** Starts a sidecar, asks for one title and returns it when it was applied and changed. */
export async function readmeExample(url: string): Promise<string | null | undefined> {
  const config = TitleSidecarConfig.parse({ DATABASE_URL: url, AW_PREFIX: 'aw' });
  const sidecar = await startTitleSidecar(config);
  const client = await connectTitleClient('nats://127.0.0.1:4222', 'aw');
  const reply = await client.request({ sessionId: 's-1', input: 'fix the flaky login test in CI' });
  const newTitle = reply.ok && reply.applied && reply.changed ? reply.title : undefined;
  await client.close();
  await sidecar.stop();
  return newTitle;
}
