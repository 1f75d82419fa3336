export { TitleSidecarConfig } from './config.ts';
export { startTitleSidecar } from './title-sidecar.ts';
