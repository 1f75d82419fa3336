// Test kit of @agentwire/title-sidecar: for tests only, never imported by production code.
export { spawnTitleSidecar, type TitleSidecarProcess } from './spawn-title-sidecar.ts';
export { connectTitleClient } from './title-test-kit.ts';
