// Migrations are listed explicitly (no file discovery): the same list runs under tsx, in tests and in production.
import { Migration20261120000000_initial } from './Migration20261120000000_initial.js';
import { Migration20261120010000_identity } from './Migration20261120010000_identity.js';

export const migrationsList = [
  { name: 'Migration20261120000000_initial', class: Migration20261120000000_initial },
  { name: 'Migration20261120010000_identity', class: Migration20261120010000_identity },
];
