export { buildApp } from './build-app.ts';
