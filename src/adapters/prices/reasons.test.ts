// The domain's abstain codes (reasons.ts, each documented there) and the spec's AbstainedReason enum
// (spec/openapi.yaml, what GET /v1/markets/{id} may serve) are one list: a code added to one side only fails here.
import { describe, expect, it } from 'vitest';
import { AbstainedReasonSchema } from '../../../generated/openapi/schemas.gen.js';
import { ABSTAIN_REASONS } from './reasons.js';

describe('abstain reasons', () => {
  it('are exactly the spec enum of abstained_reason', () => {
    expect([...ABSTAIN_REASONS].sort()).toEqual(AbstainedReasonSchema.enum.filter((r) => r !== null).sort());
  });
});
