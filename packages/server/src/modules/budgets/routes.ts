import { budget, budgetBody, orgBudgetParam, orgIdParam } from '@tollway/shared';
import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { requireOrg } from '../organizations/access.js';
import { budgetsOf } from './service.js';

const tags = ['organization'];

/** An organization's budgets (docs/operating/budgets.md): read with org.read, changed with budgets.manage. */
export function budgetRoutes(r: Router): void {
  r.add({
    method: 'GET',
    url: '/api/org/:id/budgets',
    level: 'user',
    summary: "The organization's budgets with what each has used in its current period",
    tags,
    params: orgIdParam,
    response: z.array(budget),
    handler: async ({ ctx, user, params }) =>
      budgetsOf(ctx).list(await requireOrg(ctx.db, user!, params.id, 'org.read')),
  });
  r.add({
    method: 'POST',
    url: '/api/org/:id/budgets',
    level: 'user',
    summary: 'Create a budget (organization, team, member, token or tag; day, week, month or total; hard or soft)',
    tags,
    params: orgIdParam,
    body: budgetBody,
    response: budget,
    handler: async ({ ctx, user, params, body }) =>
      budgetsOf(ctx).create(
        await requireOrg(ctx.db, user!, params.id, 'budgets.manage', { write: true }),
        body,
        user!.id,
      ),
  });
  r.add({
    method: 'PUT',
    url: '/api/org/:id/budgets/:budget_id',
    level: 'user',
    summary: 'Change a budget (its count in the current period stays)',
    tags,
    params: orgBudgetParam,
    body: budgetBody,
    response: budget,
    handler: async ({ ctx, user, params, body }) =>
      budgetsOf(ctx).update(
        await requireOrg(ctx.db, user!, params.id, 'budgets.manage', { write: true }),
        params.budget_id,
        body,
      ),
  });
  r.add({
    method: 'DELETE',
    url: '/api/org/:id/budgets/:budget_id',
    level: 'user',
    summary: 'Delete a budget',
    tags,
    params: orgBudgetParam,
    response: z.null(),
    handler: async ({ ctx, user, params }) =>
      budgetsOf(ctx).delete(
        await requireOrg(ctx.db, user!, params.id, 'budgets.manage', { write: true }),
        params.budget_id,
      ),
  });
}
