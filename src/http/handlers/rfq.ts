// RFQ trading routes. So far: the EIP-712 typed data takers and market makers sign (getRfqTypedData).
import type { RfqTypedData } from '../../../generated/openapi/types.gen.js';
import { rfqDomainOf, RFQ_PRIMARY_TYPES, RFQ_TYPES } from '../../domain/rfq/typed-data.js';
import type { HandlersFor } from '../handler.js';

export const TYPED_DATA_CACHE_CONTROL = 'public, max-age=3600';

export function rfqTypedDataBody(settings: Parameters<typeof rfqDomainOf>[0]): RfqTypedData {
  const fields = (list: ReadonlyArray<{ name: string; type: string }>) => list.map((f) => ({ name: f.name, type: f.type }));
  return {
    domain: rfqDomainOf(settings),
    types: { RfqOrder: fields(RFQ_TYPES.RfqOrder), Leg: fields(RFQ_TYPES.Leg), Quote: fields(RFQ_TYPES.Quote) },
    primary_types: { ...RFQ_PRIMARY_TYPES },
  };
}

export function rfqHandlers(deps: { settings: Parameters<typeof rfqDomainOf>[0] }): HandlersFor<'getRfqTypedData'> {
  const body = rfqTypedDataBody(deps.settings);
  return {
    getRfqTypedData: () => ({ status: 200, body, headers: { 'Cache-Control': TYPED_DATA_CACHE_CONTROL } }),
  };
}
