// What deposits and withdrawals tell other processes after commit (docs/trading.md, "The bus"). The rules return
// or imply them; only the money lifecycle (src/trading/money-lifecycle.ts) publishes them. The bus payload is the
// event object itself:
//   operation.settled {topic, operation_id} -> wakes the request waiting for that operation (src/trading/operation-waiter.ts)
// Published when an operation becomes final: settled by a worker, rejected or resolved by an operator.
export interface OperationSettledEvent {
  topic: 'operation.settled';
  operation_id: string;
}

export type MoneyEvent = OperationSettledEvent;

export const operationSettled = (operationId: string): OperationSettledEvent => ({ topic: 'operation.settled', operation_id: operationId });
