export * from './create-database.ts';
export * from './errors.ts';
export * from './migrate.ts';
export * from './schema.ts';
