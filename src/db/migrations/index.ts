// Migrations are listed explicitly (no file discovery): the same list runs under tsx, in tests and in production.
import { Migration20261120000000_initial } from './Migration20261120000000_initial.js';
import { Migration20261120010000_identity } from './Migration20261120010000_identity.js';
import { Migration20261120020000_markets } from './Migration20261120020000_markets.js';
import { Migration20261120030000_market_makers } from './Migration20261120030000_market_makers.js';
import { Migration20261120040000_ledger } from './Migration20261120040000_ledger.js';
import { Migration20261120050000_contests } from './Migration20261120050000_contests.js';
import { Migration20261123010000_exactly_once } from './Migration20261123010000_exactly_once.js';
import { Migration20261123020000_auth_prune } from './Migration20261123020000_auth_prune.js';
import { Migration20261123030000_shared_limits } from './Migration20261123030000_shared_limits.js';
import { Migration20261125010000_rfq } from './Migration20261125010000_rfq.js';
import { Migration20261125020000_ledger_check_once } from './Migration20261125020000_ledger_check_once.js';
import { Migration20261126010100_operator_audit } from './Migration20261126010100_operator_audit.js';
import { Migration20261126020000_onchain_settlement } from './Migration20261126020000_onchain_settlement.js';
import { Migration20261126020500_custodial_deposits } from './Migration20261126020500_custodial_deposits.js';
import { Migration20261126030000_price_quorum } from './Migration20261126030000_price_quorum.js';
import { Migration20261126050000_market_makers_first_class } from './Migration20261126050000_market_makers_first_class.js';
import { Migration20261126060000_rfq_fill_path } from './Migration20261126060000_rfq_fill_path.js';
import { Migration20261128010000_settlement_review } from './Migration20261128010000_settlement_review.js';
import { Migration20261128020000_chain_tx } from './Migration20261128020000_chain_tx.js';
import { Migration20261128030000_price_sources } from './Migration20261128030000_price_sources.js';
import { Migration20261128040000_history } from './Migration20261128040000_history.js';
import { Migration20261129010000_withdrawal_controls } from './Migration20261129010000_withdrawal_controls.js';

export const migrationsList = [
  { name: 'Migration20261120000000_initial', class: Migration20261120000000_initial },
  { name: 'Migration20261120010000_identity', class: Migration20261120010000_identity },
  { name: 'Migration20261120020000_markets', class: Migration20261120020000_markets },
  { name: 'Migration20261120030000_market_makers', class: Migration20261120030000_market_makers },
  { name: 'Migration20261120040000_ledger', class: Migration20261120040000_ledger },
  { name: 'Migration20261120050000_contests', class: Migration20261120050000_contests },
  { name: 'Migration20261123010000_exactly_once', class: Migration20261123010000_exactly_once },
  { name: 'Migration20261123020000_auth_prune', class: Migration20261123020000_auth_prune },
  { name: 'Migration20261123030000_shared_limits', class: Migration20261123030000_shared_limits },
  { name: 'Migration20261125010000_rfq', class: Migration20261125010000_rfq },
  { name: 'Migration20261125020000_ledger_check_once', class: Migration20261125020000_ledger_check_once },
  { name: 'Migration20261126010100_operator_audit', class: Migration20261126010100_operator_audit },
  { name: 'Migration20261126020000_onchain_settlement', class: Migration20261126020000_onchain_settlement },
  { name: 'Migration20261126020500_custodial_deposits', class: Migration20261126020500_custodial_deposits },
  { name: 'Migration20261126030000_price_quorum', class: Migration20261126030000_price_quorum },
  { name: 'Migration20261126050000_market_makers_first_class', class: Migration20261126050000_market_makers_first_class },
  { name: 'Migration20261126060000_rfq_fill_path', class: Migration20261126060000_rfq_fill_path },
  { name: 'Migration20261128010000_settlement_review', class: Migration20261128010000_settlement_review },
  { name: 'Migration20261128020000_chain_tx', class: Migration20261128020000_chain_tx },
  { name: 'Migration20261128030000_price_sources', class: Migration20261128030000_price_sources },
  { name: 'Migration20261128040000_history', class: Migration20261128040000_history },
  { name: 'Migration20261129010000_withdrawal_controls', class: Migration20261129010000_withdrawal_controls },
];
