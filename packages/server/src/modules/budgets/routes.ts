import { budget, budgetBody, orgBudgetParam, orgIdParam } from '@tollway/shared';
import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { addOrgRoute } from '../organizations/org-route.js';
import { budgetsOf } from './service.js';

const tags = ['organization'];

/** An organization's budgets (docs/operating/budgets.md): read with org.read, changed with budgets.manage. */
export function budgetRoutes(r: Router): void {
  addOrgRoute(r, {
    method: 'GET',
    url: '/api/org/:id/budgets',
    need: 'org.read',
    summary: "The organization's budgets with what each has used in its current period",
    tags,
    params: orgIdParam,
    response: z.array(budget),
    handler: ({ ctx, access }) => budgetsOf(ctx).list(access),
  });
  addOrgRoute(r, {
    method: 'POST',
    url: '/api/org/:id/budgets',
    need: 'budgets.manage',
    write: true,
    summary: 'Create a budget (organization, team, member, token or tag; day, week, month or total; hard or soft)',
    tags,
    params: orgIdParam,
    body: budgetBody,
    response: budget,
    handler: ({ ctx, user, body, access }) => budgetsOf(ctx).create(access, body, user!.id),
  });
  addOrgRoute(r, {
    method: 'PUT',
    url: '/api/org/:id/budgets/:budget_id',
    need: 'budgets.manage',
    write: true,
    summary: 'Change a budget (its count in the current period stays)',
    tags,
    params: orgBudgetParam,
    body: budgetBody,
    response: budget,
    handler: ({ ctx, params, body, access }) => budgetsOf(ctx).update(access, params.budget_id, body),
  });
  addOrgRoute(r, {
    method: 'DELETE',
    url: '/api/org/:id/budgets/:budget_id',
    need: 'budgets.manage',
    write: true,
    summary: 'Delete a budget',
    tags,
    params: orgBudgetParam,
    response: z.null(),
    handler: ({ ctx, params, access }) => budgetsOf(ctx).delete(access, params.budget_id),
  });
}
