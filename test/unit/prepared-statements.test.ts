import { describe, expect, it } from 'vitest';
import { toNumberedPlaceholders } from '../../src/infra/db/prepared-statements.js';

describe('toNumberedPlaceholders', () => {
  it('numbers ? placeholders in order and keeps ::casts', () => {
    expect(toNumberedPlaceholders('select ?::uuid, ? from t where a = ? or b = ?')).toEqual({
      text: 'select $1::uuid, $2 from t where a = $3 or b = $4',
      placeholders: 4,
    });
  });
  it('leaves ? inside string literals alone', () => {
    expect(toNumberedPlaceholders(`select '?' , ? , 'it''s ?'`)).toEqual({ text: `select '?' , $1 , 'it''s ?'`, placeholders: 1 });
  });
  it('refuses identifier and jsonb-operator forms it cannot translate', () => {
    expect(() => toNumberedPlaceholders('select ?? from t')).toThrow();
    expect(() => toNumberedPlaceholders('select a ?| b from t')).toThrow();
  });
});
