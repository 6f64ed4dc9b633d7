import type { TaskList } from "graphile-worker";
import type { Services } from "../runtime.js";
import { taskRegistry } from "./registry.js";
import { tasksOf } from "./task.js";

/** Every task of the registry, as the workers run it, with its handler's services. */
export function taskList(services: Services): TaskList {
  return tasksOf<string, Services>(taskRegistry, services);
}
