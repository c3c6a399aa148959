export { BillingExprError } from './errors.js';
export { parseBillingExpr, BILLING_EXPR_MAX_LENGTH, type ExprNode } from './parser.js';
export { JsonValue, type ExprRequest, type Value } from './evaluate.js';
export {
  BILLING_EXPR_VARS,
  billingExprProblem,
  cachedBillingExpr,
  compileBillingExpr,
  runBillingExpr,
  type BillingExprVar,
  type CompiledBillingExpr,
} from './compile.js';
export { clockFields, isKnownTimeZone } from './clock.js';
