import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { requireLevel } from '../auth/guard.js';
import { modelsByType } from '../channels/known-models.js';
import {
  createModelBody,
  createVendorBody,
  idParam,
  modelListQuery,
  previewQuery,
  syncBody,
  updateModelBody,
  updateModelQuery,
  updateVendorBody,
  vendorListQuery,
} from './schema.js';
import { registryOf } from './service.js';
import { applySync, previewSync } from './sync.js';

const row = z.record(z.string(), z.unknown());
const page = z.object({ items: z.array(row), total: z.number(), page: z.number(), page_size: z.number() });
const modelPage = page.extend({ vendor_counts: z.record(z.string(), z.number()) });

/** The request path ends in a slash (the router ignores trailing slashes, so one route serves both forms). */
const endsWithSlash = (url: string): boolean => (url.split('?')[0] ?? '').endsWith('/');

/** new-api's vendor management (/api/vendors). */
function vendorRoutes(r: Router): void {
  const tags = ['models'];
  r.add({
    method: 'GET',
    url: '/api/vendors/',
    level: 'admin',
    summary: 'Paged vendors, oldest first, each with model_count (page_size up to 1000)',
    tags,
    query: vendorListQuery,
    response: page,
    handler: ({ ctx, query }) => registryOf(ctx).vendorPage(query, false),
  });
  r.add({
    method: 'GET',
    url: '/api/vendors/search',
    level: 'admin',
    summary: 'Vendors whose name or description holds keyword, newest first',
    tags,
    query: vendorListQuery,
    response: page,
    handler: ({ ctx, query }) => registryOf(ctx).vendorPage(query, true),
  });
  r.add({
    method: 'GET',
    url: '/api/vendors/:id',
    level: 'admin',
    summary: 'One vendor',
    tags,
    params: idParam,
    response: row,
    handler: ({ ctx, params }) => registryOf(ctx).vendor(params.id),
  });
  r.add({
    method: 'POST',
    url: '/api/vendors/',
    level: 'admin',
    summary: 'Create a vendor: name (unique), description, icon (a @lobehub/icons name), status',
    tags,
    body: createVendorBody,
    response: row,
    handler: ({ ctx, body }) => registryOf(ctx).createVendor(body),
  });
  r.add({
    method: 'PUT',
    url: '/api/vendors/',
    level: 'admin',
    summary: 'Edit a vendor by id: the fields present change',
    tags,
    body: updateVendorBody,
    response: row,
    handler: ({ ctx, body }) => registryOf(ctx).updateVendor(body),
  });
  r.add({
    method: 'DELETE',
    url: '/api/vendors/:id',
    level: 'admin',
    summary: 'Delete a vendor; its models stay, with no vendor',
    tags,
    params: idParam,
    handler: async ({ ctx, params }) => registryOf(ctx).deleteVendor(params.id),
  });
}

/** new-api's model management (/api/models/…) beside Tollway's channel-type model map (/api/models). */
export function modelRegistryRoutes(r: Router): void {
  vendorRoutes(r);
  const tags = ['models'];
  r.add({
    method: 'GET',
    url: '/api/models',
    level: 'user',
    summary:
      "Without a trailing slash (any user, as new-api's): channel type id → its default model list. With one (/api/models/, administrators): the registry, paged, newest first",
    tags,
    query: modelListQuery,
    response: z.union([z.record(z.string(), z.array(z.string())), modelPage]),
    handler: async ({ ctx, req, user, query }) => {
      if (!endsWithSlash(req.url)) return modelsByType();
      await requireLevel(req, ctx, user!, 'admin');
      return registryOf(ctx).modelPage(query);
    },
  });
  r.add({
    method: 'GET',
    url: '/api/models/search',
    level: 'admin',
    summary: 'Registry entries by keyword (name, description, tags), vendor (id or name), status and sync_official',
    tags,
    query: modelListQuery,
    response: modelPage,
    handler: ({ ctx, query }) => registryOf(ctx).modelPage(query),
  });
  r.add({
    method: 'GET',
    url: '/api/models/missing',
    level: 'admin',
    summary: 'Models enabled channels serve that no registry entry describes (by name rule)',
    tags,
    response: z.array(z.string()),
    handler: ({ ctx }) => registryOf(ctx).missing(),
  });
  r.add({
    method: 'GET',
    url: '/api/models/sync_upstream/preview',
    level: 'admin',
    summary:
      'Fetch the catalog (SYNC_UPSTREAM_BASE, through the outbound guard): missing models it has, and conflicts with entries that follow it',
    tags,
    query: previewQuery,
    response: z.object({ missing: z.array(z.string()), conflicts: z.array(row), source: row }),
    handler: ({ ctx, query }) => previewSync(ctx, query.locale ?? ''),
  });
  r.add({
    method: 'POST',
    url: '/api/models/sync_upstream',
    level: 'admin',
    summary: 'Create the missing models the catalog has (and their vendors); overwrite: the chosen fields of entries',
    tags,
    body: syncBody,
    response: row,
    handler: ({ ctx, body }) => applySync(ctx, body),
  });
  r.add({
    method: 'GET',
    url: '/api/models/:id',
    level: 'admin',
    summary: 'One registry entry with its channels, groups and billing types',
    tags,
    params: idParam,
    response: row,
    handler: ({ ctx, params }) => registryOf(ctx).model(params.id),
  });
  r.add({
    method: 'POST',
    url: '/api/models/',
    level: 'admin',
    summary: 'Create a registry entry: model_name (unique) with a name rule (0 exact, 1 prefix, 2 contains, 3 suffix)',
    tags,
    body: createModelBody,
    response: row,
    handler: ({ ctx, body }) => registryOf(ctx).createModel(body),
  });
  r.add({
    method: 'PUT',
    url: '/api/models/',
    level: 'admin',
    summary: 'Edit a registry entry by id: the fields present change; ?status_only=true changes status alone',
    tags,
    query: updateModelQuery,
    body: updateModelBody,
    response: row,
    handler: ({ ctx, query, body }) => registryOf(ctx).updateModel(body, query.status_only === 'true'),
  });
  r.add({
    method: 'DELETE',
    url: '/api/models/:id',
    level: 'admin',
    summary: 'Delete a registry entry',
    tags,
    params: idParam,
    handler: async ({ ctx, params }) => registryOf(ctx).deleteModel(params.id),
  });
}
