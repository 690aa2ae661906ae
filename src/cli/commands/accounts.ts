import type { Command } from 'commander';
import type { User } from '../../accounts/users.js';
import type { Database } from '../../db/connection.js';
import type { Site } from '../../sites/sites.js';
import { CliError, type CommandResult, type Runner } from '../command-kit.js';
import { withDatabase } from '../runtime.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

interface UserOptions {
  email: string;
  name: string;
  password?: string;
  passwordStdin?: boolean;
  avatarUrl?: string;
}

async function passwordOf(options: Pick<UserOptions, 'password' | 'passwordStdin'>): Promise<string | undefined> {
  if (options.password !== undefined && options.passwordStdin) throw new CliError('give --password or --password-stdin, not both', 'invalid_argument', 2);
  return options.passwordStdin ? await readStdin() : options.password;
}

interface RoleOptions {
  site: string;
  email: string;
  role: string;
}

export function registerAccountCommands(program: Command, run: Runner): void {
  const user = program.command('user').description('user accounts (one account can hold roles at many sites)');
  user
    .command('create')
    .description('create a user account')
    .requiredOption('--email <email>', 'sign-in email')
    .requiredOption('--name <name>', 'display name')
    .option('--password <password>', 'password (at least 8 characters); prefer --password-stdin')
    .option('--password-stdin', 'read the password from standard input')
    .option('--avatar-url <url>', 'avatar picture URL')
    .action(
      run(async (options: UserOptions): Promise<CommandResult> => {
        const password = await passwordOf(options);
        const { createUser } = await import('../../accounts/users.js');
        return withDatabase(async (db) => {
          const user = await createUser(db, { email: options.email, name: options.name, password, avatarUrl: options.avatarUrl });
          return {
            text: `created user ${user.id} ${user.email}${password === undefined ? ' (no password: cannot sign in until one is set)' : ''}`,
            data: { id: user.id, email: user.email, name: user.name, avatarUrl: user.avatarUrl, hasPassword: password !== undefined },
          };
        });
      }),
    );

  // Accounts an operator added through the admin API (createMember) have no password until one is set here.
  user
    .command('set-password')
    .description('set (or replace) the password of an existing account, e.g. one an operator added through the admin API')
    .requiredOption('--email <email>', 'sign-in email of the account')
    .option('--password <password>', 'password (at least 8 characters); prefer --password-stdin')
    .option('--password-stdin', 'read the password from standard input')
    .action(
      run(async (options: Pick<UserOptions, 'email' | 'password' | 'passwordStdin'>): Promise<CommandResult> => {
        const password = await passwordOf(options);
        if (password === undefined) throw new CliError('give --password or --password-stdin', 'invalid_argument', 2);
        const { setUserPassword } = await import('../../accounts/users.js');
        return withDatabase(async (db) => {
          const account = await setUserPassword(db, options.email, password);
          return { text: `set the password of user ${account.id} ${account.email}`, data: { id: account.id, email: account.email } };
        });
      }),
    );

  user
    .command('revoke-tokens')
    .description("revoke every token the account holds at a site (all its authorizations there, e.g. after a lost device); the account and its roles stay")
    .requiredOption('--site <origin>', 'the site, named by its origin')
    .requiredOption('--email <email>', 'sign-in email of the account')
    .action(
      run(async (options: Omit<RoleOptions, 'role'>): Promise<CommandResult> => {
        const { endGrantsWhere } = await import('../../grants/end-grant.js');
        return withDatabase(async (db) => {
          const { site, user } = await siteAndUser(db, options);
          const revokedPairs = await endGrantsWhere(db, site.id, (pairs) => pairs.where({ user_id: user.id }), 'revoked');
          return { text: `revoked ${revokedPairs} token pair(s) of ${user.email} at ${site.origin}`, data: { site: site.origin, userId: user.id, email: user.email, revokedPairs } };
        });
      }),
    );

  const role = program.command('role').description('per-site roles');
  withRoleOptions(role.command('grant').description('grant a user a role at a site (owner, operator, staff, lecturer, student)'))
    .action(
      run(async (options: RoleOptions): Promise<CommandResult> => {
        const { grantRole, parseRole, rolesAt } = await import('../../accounts/roles.js');
        return withDatabase(async (db) => {
          const role = parseRole(options.role);
          const { site, user } = await siteAndUser(db, options);
          const { granted } = await grantRole(db, site.id, user.id, role);
          const roles = await rolesAt(db, site.id, user.id);
          return {
            text: `${granted ? 'granted' : 'already held:'} ${role} to ${user.email} at ${site.origin} (roles: ${roles.join(', ')})`,
            data: { site: site.origin, userId: user.id, email: user.email, role, granted, roles },
          };
        });
      }),
    );

  withRoleOptions(role.command('revoke').description('take a role away from a user at a site; tokens of clients the remaining roles no longer permit are revoked at once'))
    .action(
      run(async (options: RoleOptions): Promise<CommandResult> => {
        const [{ parseRole, rolesAt }, { revokeRole }] = await Promise.all([import('../../accounts/roles.js'), import('../../people/members.js')]);
        return withDatabase(async (db) => {
          const role = parseRole(options.role);
          const { site, user } = await siteAndUser(db, options);
          const { revoked, revokedPairs } = await revokeRole(db, site.id, user.id, role);
          const roles = await rolesAt(db, site.id, user.id);
          return {
            text: `${revoked ? 'revoked' : 'not held:'} ${role} of ${user.email} at ${site.origin} (roles: ${roles.join(', ') || 'none'}; ${revokedPairs} token pair(s) revoked)`,
            data: { site: site.origin, userId: user.id, email: user.email, role, revoked, roles, revokedPairs },
          };
        });
      }),
    );
}

function withRoleOptions(command: Command): Command {
  return command
    .requiredOption('--site <origin>', 'the site, named by its origin')
    .requiredOption('--email <email>', 'the user')
    .requiredOption('--role <role>', 'owner | operator | staff | lecturer | student');
}

async function siteAndUser(db: Database, options: { site: string; email: string }): Promise<{ site: Site; user: User }> {
  const [{ requireSiteByOrigin }, { findUserByEmail }] = await Promise.all([import('../../sites/sites.js'), import('../../accounts/users.js')]);
  const site = await requireSiteByOrigin(db, options.site);
  const user = await findUserByEmail(db, options.email);
  if (!user) throw new CliError(`no user with email ${options.email} (create one with: schoolgate user create)`, 'user_not_found');
  return { site, user };
}
