import {
  createRuleRequestSchema,
  updateRuleRequestSchema,
  type CreateRuleRequest,
  type RuleKind,
  type UpdateRuleRequest,
} from "@loyalty/shared-types";
import type pg from "pg";
import type { Queryable } from "../../db/pool.js";
import { AppError } from "../../errors.js";
import { parseRequest } from "../../http/validate.js";
import {
  deleteRule,
  findActiveRuleFor,
  findRule,
  insertRule,
  listRules,
  ONE_ACTIVE_RULE_INDEX,
  updateRule,
  type RuleRow,
} from "./rules.repository.js";

type Target = { kind: RuleKind; targetId: number | null };

function describe(target: Target): string {
  return target.kind === "default" ? "the default rule" : `${target.kind} ${target.targetId}`;
}

/**
 * Two active rules for one target would leave the engine to pick one of them silently. The
 * message names the active rule when it is known (a race only tells that there is one).
 */
function activeRuleTaken(target: Target, pointer: string, activeId?: number): AppError {
  const holder = activeId === undefined ? "Another rule" : `Rule ${activeId}`;
  return new AppError(
    "validation-failed",
    `${holder} is already active for ${describe(target)}: deactivate it first.`,
    [
      {
        location: "body",
        pointer,
        message: "another active rule has this target",
        code: "conflict",
      },
    ],
  );
}

function isActiveRuleViolation(error: unknown): boolean {
  const { code, constraint } = error as { code?: string; constraint?: string };
  return code === "23505" && constraint === ONE_ACTIVE_RULE_INDEX;
}

function notFound(ruleId: number): AppError {
  return new AppError("not-found", `The store has no attribution rule with the id ${ruleId}.`);
}

/**
 * The back-office's attribution rules. One active rule per product, per category, and one
 * default rule: checked first, to name the rule in the way, and by the unique index under races.
 */
export class RulesService {
  constructor(private readonly pool: pg.Pool) {}

  list(storeId: number): Promise<RuleRow[]> {
    return listRules(this.pool, storeId);
  }

  /** Creates a rule; `db` lets a caller make it part of a larger transaction. */
  async create(
    storeId: number,
    input: CreateRuleRequest,
    db: Queryable = this.pool,
  ): Promise<RuleRow> {
    const rule = parseRequest(createRuleRequestSchema, input, "body");
    // A default rule has no target: its kind is what collides.
    const pointer = rule.kind === "default" ? "/kind" : "/targetId";
    const active = rule.active ? await findActiveRuleFor(db, storeId, rule) : undefined;
    if (active !== undefined) throw activeRuleTaken(rule, pointer, active);
    try {
      return await insertRule(db, storeId, rule);
    } catch (error) {
      throw isActiveRuleViolation(error) ? activeRuleTaken(rule, pointer) : error;
    }
  }

  /** Changes a rule's name, rate, points per item or activity; never what it targets. */
  async update(storeId: number, ruleId: number, input: UpdateRuleRequest): Promise<RuleRow> {
    const changes = parseRequest(updateRuleRequestSchema, input, "body");
    const rule = await findRule(this.pool, storeId, ruleId);
    if (!rule) throw notFound(ruleId);
    const other = changes.active
      ? await findActiveRuleFor(this.pool, storeId, rule, ruleId)
      : undefined;
    if (other !== undefined) throw activeRuleTaken(rule, "/active", other);
    try {
      const updated = await updateRule(this.pool, storeId, ruleId, changes);
      if (!updated) throw notFound(ruleId);
      return updated;
    } catch (error) {
      throw isActiveRuleViolation(error) ? activeRuleTaken(rule, "/active") : error;
    }
  }

  /** Orders keep the rule they earned under in their snapshot: refunds are unaffected. */
  async delete(storeId: number, ruleId: number): Promise<void> {
    if (!(await deleteRule(this.pool, storeId, ruleId))) throw notFound(ruleId);
  }
}
