// infra/db/sql-state.ts: the one reading of a database error's SQLSTATE, used by the group
// commit's retry (40P01 / 40001 run again; statement errors retried row by row) and by the
// runner's error map (connection failures 503 unavailable, conflicts 503 conflict_retry).
import { describe, expect, it } from 'vitest';
import { isConnectionFailure, isStatementError, isTransientConflict, sqlState } from '../../src/infra/db/sql-state.js';

const pgError = (code: string) => Object.assign(new Error('pg'), { code });

describe('sqlState', () => {
  it('finds the SQLSTATE wherever the driver put it: sqlState, code, or the cause', () => {
    expect(sqlState(pgError('40P01'))).toBe('40P01');
    expect(sqlState({ sqlState: '23505', code: 'ERR_SOMETHING' })).toBe('23505');
    expect(sqlState(Object.assign(new Error('wrapped'), { cause: pgError('40001') }))).toBe('40001');
  });

  it('is undefined for socket codes, non-errors and malformed codes', () => {
    for (const e of [pgError('ECONNRESET'), pgError('EPIPE'), null, undefined, 'x', { code: 12345 }, pgError('4001'), pgError('abcde')])
      expect(sqlState(e)).toBeUndefined();
  });
});

describe('error classes', () => {
  it('a lost deadlock or serialization conflict is transient; anything else is not', () => {
    expect(isTransientConflict(pgError('40P01'))).toBe(true);
    expect(isTransientConflict({ cause: pgError('40001') })).toBe(true);
    expect(isTransientConflict(pgError('23505'))).toBe(false);
    expect(isTransientConflict(new Error('plain'))).toBe(false);
  });

  it('a statement error is a SQLSTATE outside the connection, resource and system classes', () => {
    expect(isStatementError(pgError('22P02'))).toBe(true);
    expect(isStatementError(pgError('40P01'))).toBe(true);
    for (const code of ['08006', '53300', '57P01', '58030']) expect(isStatementError(pgError(code)), code).toBe(false);
    expect(isStatementError(pgError('ECONNRESET'))).toBe(false);
  });

  it('a connection failure is a lost-connection SQLSTATE or a socket error, on the error or its cause', () => {
    for (const code of ['57P01', '57P02', '57P03', '08000', '08001', '08003', '08006', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE']) {
      expect(isConnectionFailure(pgError(code)), code).toBe(true);
    }
    expect(isConnectionFailure({ cause: pgError('ECONNREFUSED') })).toBe(true);
    expect(isConnectionFailure(pgError('40P01'))).toBe(false);
    expect(isConnectionFailure(pgError('53300'))).toBe(false);
    expect(isConnectionFailure(new Error('plain'))).toBe(false);
  });
});
