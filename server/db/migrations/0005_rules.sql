CREATE TABLE "risk_settings" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"max_order_usd" numeric NOT NULL,
	"daily_budget_usd" numeric NOT NULL,
	"max_positions" integer NOT NULL,
	"cooldown_minutes" integer NOT NULL,
	"max_age_seconds" integer NOT NULL,
	"kill_switch" boolean DEFAULT false NOT NULL,
	"resume_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rule_cursor" (
	"name" text PRIMARY KEY NOT NULL,
	"rev" bigint NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rule_decisions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"rule_id" uuid NOT NULL,
	"rule_name" text NOT NULL,
	"rule_version" integer NOT NULL,
	"signal_id" bigint NOT NULL,
	"asset" text NOT NULL,
	"symbol" text NOT NULL,
	"side" text NOT NULL,
	"amount_usd" numeric NOT NULL,
	"outcome" text NOT NULL,
	"reason" text,
	"detail" text,
	"engine" text,
	"sentiment" text,
	"impact" real,
	"price" numeric,
	"order_id" text,
	"quantity" numeric,
	"notional" numeric,
	"latency_ms" real,
	"exit_plan" jsonb,
	"exit_state" text,
	"exit_note" text,
	"decided_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rules" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"name" text NOT NULL,
	"asset" text,
	"sentiment" text,
	"min_impact" real,
	"max_impact" real,
	"side" text NOT NULL,
	"amount_usd" numeric NOT NULL,
	"exit" jsonb,
	"is_active" boolean DEFAULT true NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "risk_settings" ADD CONSTRAINT "risk_settings_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rule_decisions" ADD CONSTRAINT "rule_decisions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rule_decisions" ADD CONSTRAINT "rule_decisions_rule_id_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rules" ADD CONSTRAINT "rules_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "rule_decisions_once_idx" ON "rule_decisions" USING btree ("rule_id","signal_id");--> statement-breakpoint
CREATE INDEX "rule_decisions_user_idx" ON "rule_decisions" USING btree ("user_id","id");--> statement-breakpoint
CREATE INDEX "rule_decisions_open_exit_idx" ON "rule_decisions" USING btree ("exit_state") WHERE "rule_decisions"."exit_state" = 'open';--> statement-breakpoint
CREATE INDEX "rules_user_idx" ON "rules" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "rules_active_idx" ON "rules" USING btree ("is_active");