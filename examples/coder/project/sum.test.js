import { test } from 'node:test';
import assert from 'node:assert/strict';
import { total } from './sum.js';

test('total adds every price', () => {
  assert.equal(total([250, 100, 5]), 355);
});

test('total of nothing is 0', () => {
  assert.equal(total([]), 0);
});
