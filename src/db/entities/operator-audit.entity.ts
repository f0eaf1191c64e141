import { defineEntity, p } from '@mikro-orm/core';

/** One operator write (migration ..._operator_audit): append-only, refused UPDATE/DELETE/TRUNCATE by triggers. */
export const OperatorAuditSchema = defineEntity({
  name: 'OperatorAudit',
  tableName: 'operator_audit',
  properties: {
    id: p.uuid().primary(),
    atMs: p.bigint('string').fieldName('at_ms'),
    operator: p.text(),
    requestId: p.text().fieldName('request_id'),
    operationId: p.text().fieldName('operation_id'),
    method: p.text(),
    path: p.text(),
    target: p.text().nullable(),
    body: p.json<unknown>().columnType('jsonb').nullable(),
    status: p.integer(),
    errorCode: p.text().fieldName('error_code').nullable(),
    inTransaction: p.boolean().fieldName('in_transaction'),
  },
});
