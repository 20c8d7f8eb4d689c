/* sbrun-init, embedded in sbrun so that no init binary is looked up on disk
 * at run time; sbrun copies it into a sealed memfd for each container. */
        .section .rodata
        .global sbrun_init_blob_start
        .global sbrun_init_blob_end
        .balign 16
sbrun_init_blob_start:
        .incbin SBRUN_INIT_FILE
sbrun_init_blob_end:
        .section .note.GNU-stack,"",%progbits
