export * from './event-types.ts';
export * from './subjects.ts';
