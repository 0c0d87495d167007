import { describe, expect, it } from 'vitest';
import { shownUrl } from './shown-url.js';

describe('shownUrl', () => {
  it('hides a password and keeps the rest', () => {
    expect(shownUrl('rediss://cairn:s3cret@cache.internal:6380/2')).toBe('rediss://cairn:***@cache.internal:6380/2');
    expect(shownUrl('postgres://app:p%40ss@db/cairn?sslmode=require')).toBe(
      'postgres://app:***@db/cairn?sslmode=require',
    );
  });

  it('leaves a URL without a password as it is, and hides one in text that is not a URL', () => {
    expect(shownUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
    expect(shownUrl('postgres://u:pw@[bad')).toBe('postgres://u:***@[bad');
  });
});
