import { quotaAmount, Role, userRole } from '@tollway/shared';
import type { TableReport } from './report.js';
import { num, type Row } from './values.js';

/**
 * The API's rules applied to imported rows (packages/shared's schemas): roles in {1, 10, 100} with one root,
 * quota columns whole numbers from 0 to QUOTA_MAX. Every refusal is listed with its row in the summary.
 */

/** The first problem of the row's quota columns, or undefined when every one is a valid quota amount. */
export function quotaProblem(row: Row, columns: readonly string[]): string | undefined {
  for (const column of columns) {
    const value = num(row[column]);
    const checked = quotaAmount(column).safeParse(value);
    if (!checked.success) return `${column} ${value}: ${checked.error.issues[0]?.message ?? 'not a quota amount'}`;
  }
  return undefined;
}

/**
 * The role a source user gets. A role Tollway does not have, a source root merged into a database with its own
 * root, and every root after the first make a common user (never an administrator: nothing the source says may
 * raise anyone's powers in the target).
 */
export class RoleRule {
  private rootTaken: boolean;

  /** `targetHasRoot`: the target had its own root before the import (a merge). */
  constructor(private readonly targetHasRoot: boolean) {
    this.rootTaken = targetHasRoot;
  }

  roleOf(row: Row, report: TableReport, example: string): number {
    const role = num(row.role, Role.Common);
    if (!userRole.safeParse(role).success) {
      report.refuse(
        example,
        `role ${role} is not a Tollway role (${Role.Common}, ${Role.Admin}, ${Role.Root}): imported as a common user`,
      );
      return Role.Common;
    }
    if (role !== Role.Root) return role;
    if (!this.rootTaken) {
      this.rootTaken = true;
      return role;
    }
    report.refuse(
      example,
      this.targetHasRoot
        ? "the source's root joins a database that has its own root: imported as a common user"
        : 'a second root: Tollway has one root; imported as a common user',
    );
    return Role.Common;
  }
}
