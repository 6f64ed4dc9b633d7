import { html, LitElement, type TemplateResult } from "lit";
import { afterEach, describe, expect, test } from "vitest";
import { page } from "vitest/browser";
import { ApiError, RequestValidationError } from "../api/errors.js";
import { expectNoAxeViolations } from "../../test/support/axe.js";
import { formErrors } from "./field-errors.js";
import { define } from "./element.js";
import { fieldStyles, inputField, selectField, textareaField } from "./form-field.js";
import { base } from "./styles.js";

/** Fields as a screen renders them: in its shadow root, with the fields' styles. */
class FieldsDemo extends LitElement {
  static override styles = [base, fieldStyles];
  fields: TemplateResult | undefined;
  protected override render() {
    return html`<main>
      <h1>Fields</h1>
      <form>${this.fields}</form>
    </main>`;
  }
}
define("bo-fields-demo", FieldsDemo);

afterEach(() => document.body.replaceChildren());

describe("fields", () => {
  test("tie the label, the hint and the error to the control", async () => {
    const demo = document.createElement("bo-fields-demo") as FieldsDemo;
    demo.fields = html` ${inputField({ name: "name", label: "Name", hint: "As customers see it", required: true })}
    ${inputField({ name: "voucher.value", label: "Value", type: "number", error: "Enter 1 or more." })}
    ${selectField({
      name: "kind",
      label: "Kind",
      value: "percentage",
      options: [
        { value: "fixed_amount", label: "Amount off" },
        { value: "percentage", label: "Percentage off" },
      ],
    })}
    ${textareaField({ name: "description", label: "Description", value: "Hello" })}`;
    document.body.append(demo);
    await demo.updateComplete;
    const name = page.getByLabelText("Name");
    await expect.element(name).toHaveAccessibleDescription("As customers see it");
    await expect.element(name).toHaveAttribute("aria-invalid", "false");
    await expect.element(name).toBeRequired();
    const value = page.getByLabelText("Value");
    await expect.element(value).toHaveAttribute("aria-invalid", "true");
    await expect.element(value).toHaveAccessibleDescription("Enter 1 or more.");
    await expect.element(page.getByLabelText("Kind")).toHaveValue("percentage");
    await expect.element(page.getByLabelText("Description")).toHaveValue("Hello");
    const data = new FormData(demo.shadowRoot!.querySelector("form")!);
    expect([...data.keys()]).toEqual(["name", "voucher.value", "kind", "description"]);
    await expectNoAxeViolations();
  });
});

describe("formErrors", () => {
  test("puts the app's issues next to their fields, in the user's words", () => {
    const error = new RequestValidationError([
      {
        location: "body",
        field: "email",
        message: "Invalid email address",
        code: "invalid_format",
        details: { format: "email" },
      },
      {
        location: "body",
        field: "password",
        message: "Too small",
        code: "too_small",
        details: { origin: "string", minimum: 1 },
      },
    ]);
    expect(formErrors(error, ["email", "password"])).toEqual({
      fields: {
        email: "Enter an email address, such as name@shop.example.",
        password: "This field is required.",
      },
      problem: undefined,
      otherIssues: [],
    });
  });

  test("keeps the server's words, and what no field shows goes with the problem", () => {
    const error = new ApiError({
      status: 400,
      reason: "validation-failed",
      title: "Validation failed",
      issues: [
        {
          location: "body",
          field: "targetId",
          message: "an active rule exists for this product",
          code: "custom",
        },
        { location: "body", field: "storeId", message: "no such store", code: "not_found" },
        {
          location: "query",
          field: "limit",
          message: "Too big",
          code: "too_big",
          details: { origin: "number", maximum: 100 },
        },
      ],
    });
    const errors = formErrors(error, ["targetId"]);
    expect(errors.fields).toEqual({ targetId: "an active rule exists for this product" });
    expect(errors.otherIssues).toEqual([
      { field: "storeId", message: "no such store", english: true },
      { field: "limit", message: "Enter 100 or less.", english: false },
    ]);
    expect(errors.problem).toBe(error);
  });

  test("an error without issues is the form's problem", () => {
    const error = new ApiError({ status: 401, reason: "unauthorized", title: "Unauthorized" });
    expect(formErrors(error, ["email"])).toEqual({ fields: {}, problem: error, otherIssues: [] });
  });
});
