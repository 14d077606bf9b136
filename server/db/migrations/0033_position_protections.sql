CREATE TABLE "position_protections" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"account" text NOT NULL,
	"symbol" text NOT NULL,
	"side" text NOT NULL,
	"stop_loss_price" numeric,
	"take_profit_price" numeric,
	"trailing_pct" numeric,
	"legs" jsonb NOT NULL,
	"exit_at" timestamp with time zone,
	"exit_state" text,
	"exit_attempts" integer DEFAULT 0 NOT NULL,
	"exit_next_at" timestamp with time zone,
	"exit_client_id" text,
	"exit_started_at" timestamp with time zone,
	"exit_note" text,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "position_protections" ADD CONSTRAINT "position_protections_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "position_protections_position_idx" ON "position_protections" USING btree ("user_id","account","symbol");--> statement-breakpoint
CREATE INDEX "position_protections_exit_idx" ON "position_protections" USING btree ("exit_at") WHERE "position_protections"."exit_state" in ('open', 'closing');