CREATE TABLE "order_requests" (
	"user_id" uuid NOT NULL,
	"idempotency_key" text NOT NULL,
	"request_hash" text NOT NULL,
	"client_order_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "paper_ledger" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"type" text NOT NULL,
	"event" jsonb NOT NULL,
	"client_order_id" text,
	"symbol" text,
	"cash_delta" numeric NOT NULL,
	"realized_pnl" numeric NOT NULL,
	"fee" numeric NOT NULL,
	"margin_delta" numeric NOT NULL,
	"cash_after" numeric NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "order_requests" ADD CONSTRAINT "order_requests_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "paper_ledger" ADD CONSTRAINT "paper_ledger_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "order_requests_key_idx" ON "order_requests" USING btree ("user_id","idempotency_key");--> statement-breakpoint
CREATE UNIQUE INDEX "paper_ledger_user_seq_idx" ON "paper_ledger" USING btree ("user_id","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "paper_ledger_client_order_idx" ON "paper_ledger" USING btree ("user_id","client_order_id") WHERE "paper_ledger"."client_order_id" is not null;--> statement-breakpoint
CREATE INDEX "paper_ledger_symbol_idx" ON "paper_ledger" USING btree ("user_id","symbol");