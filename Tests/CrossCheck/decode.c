/*
 * Independent cross-check of capture's Cyface v3 transfer files: inflates a file with zlib and
 * decodes it with libprotobuf-c, using code that protoc-c generates from protos/ at test time.
 * Prints counts and the first and last values (in the format's integer units, deltas summed) as
 * `key value...` lines, which Tests/CaptureEndToEndTests/CrossCheckTests.swift compares with the
 * Swift decoder.
 *
 * Build (the test does this in a temporary directory):
 *   protoc-c --c_out=OUT --proto_path=protos de/cyface/protos/model/measurement.proto
 *   cc -IOUT decode.c OUT/de/cyface/protos/model/measurement.pb-c.c -lprotobuf-c -lz -o decode
 * Usage: decode FILE.ccyf
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "de/cyface/protos/model/measurement.pb-c.h"

static unsigned char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t capacity = 1 << 16, used = 0;
    unsigned char *data = malloc(capacity);
    size_t n;
    while (data && (n = fread(data + used, 1, capacity - used, f)) > 0) {
        used += n;
        if (used == capacity) data = realloc(data, capacity *= 2);
    }
    fclose(f);
    *size = used;
    return data;
}

/* Raw deflate (what capture writes); returns NULL on any zlib error. */
static unsigned char *inflate_raw(const unsigned char *in, size_t size, size_t *out_size) {
    z_stream s;
    memset(&s, 0, sizeof s);
    if (inflateInit2(&s, -15) != Z_OK) return NULL;
    size_t capacity = size * 4 + 1024, used = 0;
    unsigned char *out = malloc(capacity);
    s.next_in = (unsigned char *)in;
    s.avail_in = (uInt)size;
    int status;
    do {
        if (used == capacity) out = realloc(out, capacity *= 2);
        s.next_out = out + used;
        s.avail_out = (uInt)(capacity - used);
        status = inflate(&s, Z_NO_FLUSH);
        used = capacity - s.avail_out;
        if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR) {
            inflateEnd(&s);
            free(out);
            return NULL;
        }
        if (status == Z_BUF_ERROR && s.avail_in == 0) break;
    } while (status != Z_STREAM_END);
    inflateEnd(&s);
    if (status != Z_STREAM_END) {
        free(out);
        return NULL;
    }
    *out_size = used;
    return out;
}

#define PRINT_SENSOR(NAME, BINARY, FIELD)                                                            \
    do {                                                                                             \
        size_t batches = 0, samples = 0;                                                             \
        int64_t first[4] = {0}, last[4] = {0};                                                       \
        if (BINARY) {                                                                                \
            batches = (BINARY)->n_##FIELD;                                                           \
            for (size_t b = 0; b < batches; b++) {                                                   \
                /* The delta state restarts in every batch. */                                       \
                int64_t sum[4] = {0};                                                                \
                for (size_t i = 0; i < (BINARY)->FIELD[b]->n_timestamp; i++) {                       \
                    sum[0] += (BINARY)->FIELD[b]->timestamp[i];                                      \
                    sum[1] += (BINARY)->FIELD[b]->x[i];                                              \
                    sum[2] += (BINARY)->FIELD[b]->y[i];                                              \
                    sum[3] += (BINARY)->FIELD[b]->z[i];                                              \
                    if (samples == 0) memcpy(first, sum, sizeof sum);                                \
                    memcpy(last, sum, sizeof sum);                                                   \
                    samples++;                                                                       \
                }                                                                                    \
            }                                                                                        \
        }                                                                                            \
        printf("%s %zu batches %zu samples\n", NAME, batches, samples);                              \
        if (samples) {                                                                               \
            printf("%s_first %lld %lld %lld %lld\n", NAME, (long long)first[0], (long long)first[1], \
                   (long long)first[2], (long long)first[3]);                                        \
            printf("%s_last %lld %lld %lld %lld\n", NAME, (long long)last[0], (long long)last[1],    \
                   (long long)last[2], (long long)last[3]);                                          \
        }                                                                                            \
    } while (0)

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: decode FILE\n");
        return 2;
    }
    size_t size = 0, plain_size = 0;
    unsigned char *compressed = read_file(argv[1], &size);
    if (!compressed) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 1;
    }
    unsigned char *plain = inflate_raw(compressed, size, &plain_size);
    if (!plain) {
        fprintf(stderr, "not raw deflate\n");
        return 1;
    }
    if (plain_size < 2 || plain[0] != 0 || plain[1] != 3) {
        fprintf(stderr, "no 00 03 header\n");
        return 1;
    }
    De__Cyface__Protos__Model__Measurement *m =
        de__cyface__protos__model__measurement__unpack(NULL, plain_size - 2, plain + 2);
    if (!m) {
        fprintf(stderr, "protobuf-c cannot unpack the Measurement\n");
        return 1;
    }
    printf("uncompressed %zu\n", plain_size);
    printf("format_version %u\n", m->format_version);
    De__Cyface__Protos__Model__LocationRecords *l = m->location_records;
    size_t n = l ? l->n_timestamp : 0;
    printf("locations %zu\n", n);
    if (l && (l->n_latitude != n || l->n_longitude != n || l->n_accuracy != n || l->n_speed != n)) {
        fprintf(stderr, "location columns differ in length\n");
        return 1;
    }
    int64_t sum[5] = {0};
    for (size_t i = 0; i < n; i++) {
        sum[0] += l->timestamp[i];
        sum[1] += l->latitude[i];
        sum[2] += l->longitude[i];
        sum[3] += l->accuracy[i];
        sum[4] += l->speed[i];
        if (i == 0 || i == n - 1)
            printf("%s %lld %lld %lld %lld %lld\n", i == 0 ? "location_first" : "location_last",
                   (long long)sum[0], (long long)sum[1], (long long)sum[2], (long long)sum[3],
                   (long long)sum[4]);
        if (n == 1) printf("location_last %lld %lld %lld %lld %lld\n", (long long)sum[0],
                           (long long)sum[1], (long long)sum[2], (long long)sum[3], (long long)sum[4]);
    }
    PRINT_SENSOR("accelerations", m->accelerations_binary, accelerations);
    PRINT_SENSOR("rotations", m->rotations_binary, rotations);
    PRINT_SENSOR("directions", m->directions_binary, directions);
    printf("events %zu\n", m->n_events);
    for (size_t i = 0; i < m->n_events; i++) {
        De__Cyface__Protos__Model__Event *e = m->events[i];
        printf("event %llu %d %s\n", (unsigned long long)e->timestamp, (int)e->type,
               e->value && e->value[0] ? e->value : "-");
    }
    de__cyface__protos__model__measurement__free_unpacked(m, NULL);
    free(plain);
    free(compressed);
    return 0;
}
