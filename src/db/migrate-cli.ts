import { getConfig } from '../config';
import { migrate } from './migrate';

migrate(getConfig().DATABASE_URL, (m) => console.log(m)).then(
  () => console.log('migrations applied'),
  (err) => {
    console.error('migration failed:', err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
