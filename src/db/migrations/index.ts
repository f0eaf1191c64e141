// Migrations are listed explicitly (no file discovery): the same list runs under tsx, in tests and in production.
import { Migration20261120000000_initial } from './Migration20261120000000_initial.js';

export const migrationsList = [
  { name: 'Migration20261120000000_initial', class: Migration20261120000000_initial },
];
