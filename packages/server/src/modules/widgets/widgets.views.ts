import type { WidgetKind } from "@loyalty/shared-types";
import type { WidgetConfigs } from "./widgets.defaults.js";

/** A widget configuration in the back-office: saved or the default, and when it was saved. */
export function widgetConfigurationView<K extends WidgetKind>(
  kind: K,
  stored: { config: WidgetConfigs[K]; isDefault: boolean; updatedAt: Date | null },
) {
  const { config, isDefault, updatedAt } = stored;
  return { kind, isDefault, updatedAt: updatedAt?.toISOString() ?? null, config };
}
