import { describe, expect, it } from 'vitest';
import { tenantWindowNearText, tenantWindowText, type TenantWindowSpent } from './model-response.js';

describe('tenant window texts', () => {
  const tokens: TenantWindowSpent = {
    tenant: 'acme',
    window: 'day',
    id: '2026-11-26',
    limit: 'tokens',
    used: 120,
    max: 100,
  };
  const cost: TenantWindowSpent = { tenant: 'acme', window: 'month', id: '2026-11', limit: 'cost', used: 9.5, max: 10 };

  it('say which tenant spent which window of which budget, and how much', () => {
    expect(tenantWindowText(tokens)).toBe(
      'tenant "acme" has used its daily token budget (120 of 100 tokens in 2026-11-26 UTC)',
    );
    expect(tenantWindowText(cost)).toBe(
      'tenant "acme" has used its monthly cost budget (9.5 of 10 USD in 2026-11 UTC)',
    );
  });

  it('say the same of a window a run is near', () => {
    expect(tenantWindowNearText(tokens)).toBe(
      'tenant "acme" has nearly used its daily token budget (120 of 100 tokens in 2026-11-26 UTC)',
    );
    expect(tenantWindowNearText(cost)).toBe(
      'tenant "acme" has nearly used its monthly cost budget (9.5 of 10 USD in 2026-11 UTC)',
    );
  });
});
