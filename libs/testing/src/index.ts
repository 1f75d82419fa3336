export { createTestEnvironment, type TestEnvironment } from './environment.ts';
