import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fieldLabel, humanize } from './field-labels.js';

describe('fieldLabel', () => {
  const input = z.object({
    orderId: z.string().describe('Your order number, like A-1001.'),
    sku: z.string().optional().describe('SKU printed on the box'),
    note: z.string().describe('x'.repeat(500)),
    customer_id: z.string(),
    address: z.object({ postCode: z.string().default('').describe('The post code') }).describe('Where it goes'),
    items: z.array(z.object({ qty: z.number().pipe(z.number()).describe('How many') })),
    plain: z.string(),
  });

  it("uses the field's own description, read mid-sentence", () => {
    expect(fieldLabel(input, 'orderId')).toBe('your order number, like A-1001');
    // An acronym keeps its capitals; a description on a wrapper (optional, default, pipe) counts.
    expect(fieldLabel(input, 'sku')).toBe('SKU printed on the box');
    expect(fieldLabel(input, 'address.postCode')).toBe('the post code');
    expect(fieldLabel(input, 'items.0.qty')).toBe('how many');
    expect(fieldLabel(input, 'note').length).toBeLessThan(260);
  });

  it('falls back to the name spelled out, never the raw key', () => {
    expect(fieldLabel(input, 'customer_id')).toBe('the customer ID');
    expect(fieldLabel(input, 'plain')).toBe('the plain');
    expect(fieldLabel(input, 'nowhere.orderId')).toBe('the nowhere order ID');
    expect(fieldLabel(undefined, 'orderId')).toBe('the order ID');
  });

  it('humanizes camelCase, snake_case and kebab-case names', () => {
    expect(humanize('orderId')).toBe('order ID');
    expect(humanize('order_id')).toBe('order ID');
    expect(humanize('delivery-window')).toBe('delivery window');
    expect(humanize('APIKey')).toBe('API key');
    expect(humanize('callbackURL')).toBe('callback URL');
  });
});
