DROP TABLE IF EXISTS g_jsonb, e_jsonb, g_json, e_json, g_text, e_text, anchor;
