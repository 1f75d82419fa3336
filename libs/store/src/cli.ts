/**
 * `node libs/store/src/cli.ts` (or `bash scripts/aw.sh migrate`): migrates the database at
 * `DATABASE_URL` to the latest schema and prints what it applied. Exit code 1 on failure.
 */
import { createDatabase } from './create-database.ts';
import { migrate } from './migrate.ts';

const url = process.env.DATABASE_URL;
if (url === undefined || url === '') {
  process.stderr.write('DATABASE_URL is not set\n');
  process.exit(2);
}
const db = createDatabase(url, { poolSize: 1, applicationName: 'agentwire-migrate' });
try {
  const { applied } = await migrate(db);
  process.stdout.write(
    applied.length === 0
      ? 'migrate: schema already up to date\n'
      : `migrate: applied ${applied.join(', ')}\n`,
  );
} catch (err) {
  process.stderr.write(`migrate: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
} finally {
  await db.destroy();
}
