// The operator CLI's argument parsing (README "CLI"): every command maps its flags to its operation's
// input; bad arguments are usage errors naming the flag or argument (main.ts prints them with USAGE, exit 2).
import { describe, expect, it } from 'vitest';
import { parseCommand, UsageError } from '../../src/transports/cli/commands.js';

const usage = (argv: string[]) => {
  try {
    parseCommand(argv);
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return (e as Error).message;
  }
  throw new Error(`no usage error for ${argv.join(' ')}`);
};

describe('fluxdesk argument parsing', () => {
  it('maps each command and its flags (both --flag value and --flag=value) to the operation input', () => {
    expect(parseCommand(['bootstrap', '--email', 'a@x.test', '--name=Ada L'])).toEqual({ op: 'users.bootstrap', input: { email: 'a@x.test', name: 'Ada L' } });
    expect(parseCommand(['project', 'create', '--slug', 's', '--name', 'S', '--members', 'a@x.test, b@x.test,', '--tech-leads', 'c@x.test'])).toEqual({
      op: 'projects.create',
      input: { slug: 's', name: 'S', members: ['a@x.test', 'b@x.test'], tech_leads: ['c@x.test'] },
    });
    expect(parseCommand(['token', 'create', '--email', 'e@x.test', '--label', 'ci', '--daily-limit', '200'])).toEqual({
      op: 'tokens.create_personal',
      input: { email: 'e@x.test', label: 'ci', daily_limit: 200 },
    });
    expect(parseCommand(['user', 'revoke-capability', '--email', 'e@x.test', '--capability', 'code.repo.bind'])).toEqual({
      op: 'users.revoke_capability',
      input: { email: 'e@x.test', capability: 'code.repo.bind' },
    });
    expect(parseCommand(['catalog', 'apply', '--email', 'e@x.test', '--catalog', 'github'])).toEqual({
      op: 'catalog.requests.create',
      input: { email: 'e@x.test', catalog_slug: 'github' },
    });
    expect(parseCommand(['migrate'])).toEqual({ op: 'migrate' });
    expect(parseCommand(['migrate', '--post-deploy'])).toEqual({ op: 'migrate', input: { postDeploy: true } });
  });

  it('the last of a repeated flag wins, an empty value is passed on, a leading-dash value needs the = form', () => {
    expect(parseCommand(['bootstrap', '--email', 'a@x.test', '--email', 'b@x.test'])).toEqual({ op: 'users.bootstrap', input: { email: 'b@x.test' } });
    expect(parseCommand(['user', 'create', '--email='])).toEqual({ op: 'users.create', input: { email: '' } });
    expect(parseCommand(['token', 'create', '--note=-urgent'])).toEqual({ op: 'tokens.create_personal', input: { note: '-urgent' } });
  });

  it('names what is wrong', () => {
    expect(usage([])).toBe('no command given');
    expect(usage(['user', 'delete', '--email', 'x'])).toBe('unknown command "user delete --email x"');
    expect(usage(['bootstrap', '--email', 'a@x.test', '--bogus', 'x'])).toBe('unknown flag --bogus');
    expect(usage(['migrate', '--post-deploy=yes'])).toMatch(/post-deploy/);
    expect(usage(['migrate', '--all'])).toBe('unknown flag --all');
    expect(usage(['bootstrap', 'stray'])).toBe('unexpected argument "stray"');
    expect(usage(['bootstrap', '--email'])).toBe('flag --email needs a value');
    expect(usage(['bootstrap', '--email', '--name', 'N'])).toBe('flag --email needs a value');
    expect(usage(['token', 'create', '--note', '-urgent'])).toBe('flag --note needs a value (for a value starting with a dash write --note=-urgent)');
    expect(usage(['token', 'create', '--daily-limit', '5x'])).toBe('--daily-limit must be an integer');
  });
});
