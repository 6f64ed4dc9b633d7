import type { Batcher } from "../../db/batcher.js";
import type { Queryable } from "../../db/pool.js";
import { findCustomerIdByEmail } from "../customers/customers.repository.js";
import type { DiscountCodeRequest, PlatformAdapter } from "./platform.types.js";
import { sandboxCodeExists, type SandboxCode } from "./platforms.repository.js";

/**
 * The built-in platform: codes are rows of the service's own database, customers are the ones
 * the service knows. A store runs on it until it connects a real platform: demos, tests, and
 * trying the programme out before going live.
 */
export class SandboxPlatform implements PlatformAdapter {
  readonly kind = "sandbox";

  constructor(
    private readonly db: Queryable,
    private readonly storeId: number,
    /** Writes codes in groups, for all the stores on the sandbox (see PlatformsService). */
    private readonly codes: Batcher<SandboxCode, void>,
  ) {}

  createDiscountCode(request: DiscountCodeRequest): Promise<void> {
    // An existing code with this text is the one a retry asks for again: nothing to do.
    return this.codes.write({ storeId: this.storeId, request });
  }

  discountCodeExists(code: string): Promise<boolean> {
    return sandboxCodeExists(this.db, this.storeId, code);
  }

  async findCustomerByEmail(email: string): Promise<{ id: string } | null> {
    const id = await findCustomerIdByEmail(this.db, this.storeId, email);
    return id === undefined ? null : { id: String(id) };
  }
}
